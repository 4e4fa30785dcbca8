import { DeleteQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsServiceError } from '../../../../lambda/shared/aws/aws-client.js';
import { md5OfMessageAttributes, SendMessageCommand, SqsClient } from '../../../../lambda/shared/aws/sqs.js';
import { createQueues, LOCAL_AWS, type RestartableService, startSqs } from '../../../../local/emulators.js';

// Against fauxqs (an SQS protocol peer); what is sent is received with the SDK, independently.
let sqs: RestartableService;
let client: SqsClient;
let observer: SQSClient;
let queueUrl: string;

beforeAll(async () => {
  sqs = await startSqs();
  queueUrl = (await createQueues(sqs.endpoint, { maxReceiveCount: 3, visibilityTimeoutSeconds: 30 })).queueUrl;
  client = new SqsClient({ ...LOCAL_AWS, endpoint: sqs.endpoint, retryBaseMs: 1 });
  observer = new SQSClient({ ...LOCAL_AWS, endpoint: sqs.endpoint });
});

afterAll(async () => {
  client?.destroy();
  observer?.destroy();
  await sqs?.stop();
});

describe('SqsClient on fauxqs', () => {
  it('sends a message with attributes that the SDK receives as sent, digests checked', async () => {
    const body = JSON.stringify({ v: 1, id: 'msg_1', text: 'Grüße ☃' });
    const sent = await client.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: body,
        MessageAttributes: {
          messageId: { DataType: 'String', StringValue: 'msg_1' },
          attempt: { DataType: 'Number', StringValue: '2' },
          raw: { DataType: 'Binary', BinaryValue: new Uint8Array([1, 2, 3]) },
        },
      }),
    );
    expect(sent.MessageId).toEqual(expect.any(String));
    expect(sent.$metadata).toMatchObject({ httpStatusCode: 200, attempts: 1 });

    const received = await observer.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MessageAttributeNames: ['All'], WaitTimeSeconds: 1 }),
    );
    expect(received.Messages).toHaveLength(1);
    const message = received.Messages?.[0];
    expect(message?.MessageId).toBe(sent.MessageId);
    expect(message?.Body).toBe(body);
    expect(message?.MessageAttributes).toEqual({
      messageId: { DataType: 'String', StringValue: 'msg_1' },
      attempt: { DataType: 'Number', StringValue: '2' },
      raw: { DataType: 'Binary', BinaryValue: new Uint8Array([1, 2, 3]) },
    });
    // The digests SQS computed match ours (the client refuses an answer whose digests do not).
    expect(message?.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
    expect(message?.MD5OfMessageAttributes).toBe(
      md5OfMessageAttributes({
        messageId: { DataType: 'String', StringValue: 'msg_1' },
        attempt: { DataType: 'Number', StringValue: '2' },
        raw: { DataType: 'Binary', BinaryValue: new Uint8Array([1, 2, 3]) },
      }),
    );
    expect(message?.MD5OfBody).toBe(sent.MD5OfMessageBody);
  });

  it('names a missing queue as SQS does, without retrying', async () => {
    const missing = `${sqs.endpoint}/000000000000/missing`;
    const error = await client.send(new SendMessageCommand({ QueueUrl: missing, MessageBody: 'x' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AwsServiceError);
    expect(error).toMatchObject({ $fault: 'client', $metadata: { httpStatusCode: 400, attempts: 1 } });
    expect((error as Error).name).toMatch(/QueueDoesNotExist|NonExistentQueue/);
  });

  it('rethrows ECONNREFUSED after its attempts while SQS is down', async () => {
    await sqs.pause();
    try {
      const error = await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' })).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'ECONNREFUSED', $metadata: { attempts: 3 } });
    } finally {
      await sqs.resume();
    }
    await expect(client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'back' }))).resolves.toMatchObject({
      MessageId: expect.any(String),
    });
    await observer.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
  });
});
