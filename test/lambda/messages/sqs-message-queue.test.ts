import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import type { MessageEnvelope } from '../../../lambda/messages/message.js';
import { SqsMessageQueue } from '../../../lambda/messages/sqs-message-queue.js';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/messages';
const client = new SQSClient({ region: 'eu-west-1' });
const sqs = mockClient(client);
const queue = new SqsMessageQueue(client, QUEUE_URL);

const envelope: MessageEnvelope = {
  v: 1,
  id: 'msg_01JD8X3Q5Z8M2N4P6R7S9T0V1W',
  accountId: 'acct_1',
  createdAt: '2026-11-21T10:15:30.123Z',
};

beforeEach(() => {
  sqs.reset();
});

describe('SqsMessageQueue.send', () => {
  it('sends the envelope as JSON with the message id as an attribute', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: 'sqs-1' });
    await queue.send(envelope);
    const inputs = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(inputs).toEqual([
      {
        QueueUrl: QUEUE_URL,
        MessageBody:
          '{"v":1,"id":"msg_01JD8X3Q5Z8M2N4P6R7S9T0V1W","accountId":"acct_1","createdAt":"2026-11-21T10:15:30.123Z"}',
        MessageAttributes: { messageId: { DataType: 'String', StringValue: 'msg_01JD8X3Q5Z8M2N4P6R7S9T0V1W' } },
      },
    ]);
    expect(JSON.parse(inputs[0]?.MessageBody ?? '')).toEqual(envelope);
  });

  it('propagates a failure to send (the handler answers 503)', async () => {
    const down = Object.assign(new Error('service unavailable'), { name: 'ServiceUnavailable' });
    sqs.on(SendMessageCommand).rejects(down);
    await expect(queue.send(envelope)).rejects.toBe(down);
  });
});
