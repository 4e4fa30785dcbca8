import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermanentError, type ProcessMessage } from '../../lambda/messages/processor.js';
import { LOCAL_AWS } from '../../local/emulators.js';
import { call, eventually, freshKey, send, startTestPlatform, type TestPlatform } from '../support/platform.js';

// The operator's processor in the local worker, with the platform's retries and backoff (1 s
// doubling locally), the record's attempts/result/lastError, and PermanentError.
const attempts = new Map<string, Array<{ attempt: number; at: number }>>();

const processor: ProcessMessage = (message, context) => {
  const seen = attempts.get(message.id) ?? [];
  seen.push({ attempt: context.attempt, at: Date.now() });
  attempts.set(message.id, seen);
  if (message.message === 'flaky' && context.attempt < 3) {
    throw new Error(`upstream answered 503 on attempt ${context.attempt} (token=s3cr3t)`);
  }
  if (message.message === 'refused') throw new PermanentError('the receiver refused it: 422');
  return { echoed: message.message, attempt: context.attempt };
};

async function queueEmpty(sqs: SQSClient, url: string): Promise<boolean> {
  const { Attributes: a = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible) === 0;
}

describe('the operator\'s processor on the local platform', () => {
  let platform: TestPlatform;
  let sqs: SQSClient;
  let key: string;
  beforeAll(async () => {
    platform = await startTestPlatform({ processor });
    sqs = new SQSClient({ ...LOCAL_AWS, endpoint: platform.endpoints.sqs });
    key = await freshKey(platform, 'pro', 'processor');
  });
  afterAll(async () => {
    sqs?.destroy();
    await platform?.stop();
  });

  const read = async (id: string) => (await call(platform, `/messages/${id}`, { key })).body;

  it('fails twice then succeeds: one processed record, attempts 3, its result, waits that double between attempts', async () => {
    const id = (await send(platform, key, 'flaky')).body.id as string;
    const record = await eventually(async () => {
      const body = await read(id);
      return body.status === 'processed' ? body : undefined;
    }, 20_000);
    expect(record).toMatchObject({
      id,
      status: 'processed',
      attempts: 3,
      result: { echoed: 'flaky', attempt: 3 },
      lastError: 'upstream answered 503 on attempt 2 (token=[redacted])',
    });
    const seen = attempts.get(id) ?? [];
    expect(seen.map((a) => a.attempt)).toEqual([1, 2, 3]);
    // The backoff (ChangeMessageVisibility), not the queue's 1 s visibility timeout: 1 s, then 2 s.
    const [first, second, third] = seen.map((a) => a.at) as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(900);
    expect(third - second).toBeGreaterThanOrEqual(1_900);
    await eventually(async () => ((await queueEmpty(sqs, platform.queues.queueUrl)) ? true : undefined));
    expect(attempts.get(id)).toHaveLength(3);
  });

  it('a PermanentError fails the message at once: failed, lastError, one attempt, nothing left on the queue or the DLQ', async () => {
    const id = (await send(platform, key, 'refused')).body.id as string;
    const record = await eventually(async () => {
      const body = await read(id);
      return body.status === 'failed' ? body : undefined;
    });
    expect(record).toMatchObject({ status: 'failed', attempts: 1, lastError: 'the receiver refused it: 422' });
    expect(record.failedAt).toEqual(expect.any(String));
    await eventually(async () => ((await queueEmpty(sqs, platform.queues.queueUrl)) ? true : undefined));
    expect(await queueEmpty(sqs, platform.queues.deadLetterQueueUrl)).toBe(true);
    expect(attempts.get(id)).toEqual([{ attempt: 1, at: expect.any(Number) }]);
  });
});
