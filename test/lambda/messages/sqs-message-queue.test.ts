import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageEnvelope } from '../../../lambda/messages/message.js';
import { BATCH_SETTLE_SECONDS, EnqueueError, SqsMessageQueue } from '../../../lambda/messages/sqs-message-queue.js';

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/messages';
const client = new SQSClient({ region: 'eu-west-1' });
const sqs = mockClient(client);
// No real wait between a batch's attempts (the waits are the helper's, tested in test/lambda/shared/backoff.test.ts).
const pacing = { sleep: async () => undefined, random: Math.random };
const queue = new SqsMessageQueue(client, QUEUE_URL, pacing);

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

describe('SqsMessageQueue.sendAll (a batch)', () => {
  const envelopes = (n: number): MessageEnvelope[] =>
    Array.from({ length: n }, (_, i) => ({ ...envelope, id: `msg_01JD8X3Q5Z8M2N4P6R7S9T${String(i).padStart(4, '0')}` }));
  const entries = (some: readonly MessageEnvelope[]) =>
    some.map((e, i) => ({
      Id: String(i),
      DelaySeconds: 10,
      MessageBody: JSON.stringify(e),
      MessageAttributes: { messageId: { DataType: 'String', StringValue: e.id } },
    }));
  const batchInputs = () => sqs.commandCalls(SendMessageBatchCommand).map((c) => c.args[0].input);
  const serverFault = (id: string) => ({ Id: id, SenderFault: false, Code: 'InternalError', Message: 'try again' });

  beforeEach(() => {
    // The backoff's jitter draws 0: the retries run without waiting.
    vi.spyOn(Math, 'random').mockReturnValue(0);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('sends SendMessageBatch chunks of 10, in order, each entry delayed by the settle time (10 s)', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const all = envelopes(25);
    await queue.sendAll(all);
    expect(BATCH_SETTLE_SECONDS).toBe(10);
    expect(batchInputs()).toEqual([
      { QueueUrl: QUEUE_URL, Entries: entries(all.slice(0, 10)) },
      { QueueUrl: QUEUE_URL, Entries: entries(all.slice(10, 20)) },
      { QueueUrl: QUEUE_URL, Entries: entries(all.slice(20, 25)) },
    ]);
    expect(sqs.commandCalls(SendMessageCommand)).toEqual([]);
  });

  it('sends the entries SQS failed on its side again, and only them', async () => {
    const all = envelopes(3);
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Failed: [serverFault('0'), serverFault('2')] })
      .resolvesOnce({ Failed: [serverFault('1')] })
      .resolvesOnce({});
    await queue.sendAll(all);
    expect(batchInputs().map((i) => i.Entries)).toEqual([
      entries(all),
      entries([all[0] as MessageEnvelope, all[2] as MessageEnvelope]),
      entries([all[2] as MessageEnvelope]),
    ]);
  });

  it('fails with EnqueueError naming what is left when entries stay failed after 3 attempts', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Failed: [serverFault('0')] });
    const error = await queue.sendAll(envelopes(2)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnqueueError);
    expect(error).toMatchObject({ left: 1 });
    expect((error as Error).message).toBe(
      'SendMessageBatch: 1 envelopes not enqueued (failed on the queue\'s side after the retries)',
    );
    expect(batchInputs()).toHaveLength(3);
  });

  it('fails at once, without retrying, when SQS says an entry is at fault (a retry would fail alike)', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolves({ Failed: [{ Id: '1', SenderFault: true, Code: 'InvalidParameterValue', Message: 'too long' }] });
    await expect(queue.sendAll(envelopes(2))).rejects.toThrow(
      'SendMessageBatch: 1 envelopes not enqueued (InvalidParameterValue: too long)',
    );
    expect(batchInputs()).toHaveLength(1);
  });

  it('propagates an error of the call itself (the SDK has retried it; the handler answers 503)', async () => {
    const down = Object.assign(new Error('service unavailable'), { name: 'ServiceUnavailable' });
    sqs.on(SendMessageBatchCommand).rejects(down);
    await expect(queue.sendAll(envelopes(2))).rejects.toBe(down);
  });
});
