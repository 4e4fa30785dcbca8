import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { DynamoDbMessageStore } from '../../lambda/messages/dynamodb-message-store.js';
import { LOCAL_TABLE_NAMES } from '../../local/emulators.js';
import type { HandledBatch, QueuePoller } from '../../local/queue-poller.js';
import { call, freshKey, send, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { type SlowProxy, startSlowProxy } from '../support/slow-proxy.js';

// Issue 23 item 4: a 503 is sent only once the writes are known not to have landed or were undone.
// dynalite sits behind a proxy that writes a message's record at once but holds DynamoDB's answer
// past the function's 10 s; the envelope goes to the queue as usual. The send must end its
// attempts before its early answer, take the record back out, and only then answer 503; the
// worker then meets an envelope without a record and drops it. (Before the request deadline, the
// SDK's 3 attempts of 5 s outlived the function: middy answered 503 with the record in place, and
// the worker processed the message.)
let platform: TestPlatform;
let proxy: SlowProxy;

beforeAll(async () => {
  platform = await startTestPlatform({
    dynamoDbFront: async (endpoint) => {
      proxy = await startSlowProxy(endpoint);
      return proxy.endpoint;
    },
  });
});
afterAll(async () => {
  await platform?.stop();
  await proxy?.stop();
});

/**
 * The worker's batch that settles the envelope of `id` (an event, not a sleep): handled, not
 * failed. An envelope without a record is retried until its third receive (the record may still be
 * on its way), then dropped.
 */
function settled(worker: QueuePoller, id: string): Promise<HandledBatch> {
  return new Promise((resolve) => {
    const seen = (batch: HandledBatch) => {
      if (!batch.bodies.some((b) => b.includes(id)) || batch.failed.some((b) => b.includes(id))) return;
      worker.events.off('batch', seen);
      resolve(batch);
    };
    worker.events.on('batch', seen);
  });
}

/** Sends one message with its record's PutItem answered only after 15 s; returns the answer and the record's id. */
async function sendWithSlowRecord(key: string, text: string) {
  let messageId: string | undefined;
  proxy.slow(({ target, body }) => {
    if (!target.endsWith('.PutItem') || body.TableName !== LOCAL_TABLE_NAMES.messages) return false;
    messageId = (body.Item as { id: { S: string } }).id.S;
    return true;
  }, 15_000);
  const started = Date.now();
  const answer = await send(platform, key, text);
  proxy.slow(undefined);
  // Answered by the send itself, before the function's 10 s (middy's early answer would be at 9.95 s).
  expect(Date.now() - started).toBeLessThan(9_500);
  expect(messageId).toMatch(/^msg_/);
  return { answer, id: messageId as string };
}

describe('a record write whose answer never comes back in time', () => {
  const processed = new Set<string>();
  let spy: MockInstance<DynamoDbMessageStore['markProcessed']>;
  beforeEach(() => {
    const original = DynamoDbMessageStore.prototype.markProcessed;
    spy = vi.spyOn(DynamoDbMessageStore.prototype, 'markProcessed').mockImplementation(async function (
      this: DynamoDbMessageStore,
      id,
      at,
    ) {
      const result = await original.call(this, id, at);
      if (result.result === 'updated') processed.add(id);
      return result;
    });
  });
  afterEach(() => spy.mockRestore());

  it('before the worker gets the envelope: 503 once the record is removed, and the message is never processed', async () => {
    const key = await freshKey(platform, 'free', 'deadline-503');
    const worker = platform.worker as QueuePoller;
    await worker.stop();
    const { answer, id } = await sendWithSlowRecord(key, 'written, but nobody heard');
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('service_unavailable');
    expect(proxy.held).toBeGreaterThan(0);

    // The envelope is on the queue; once the worker has settled it, the message is still unknown.
    const handled = settled(worker, id);
    worker.start();
    await handled;
    expect(processed.has(id)).toBe(false);
    expect((await call(platform, `/messages/${id}`, { key })).status).toBe(404);
  }, 30_000);

  it('after the worker processed it (the record landed, its answer was late): 202, never 503', async () => {
    const key = await freshKey(platform, 'free', 'deadline-202');
    const { answer, id } = await sendWithSlowRecord(key, 'written, processed, then heard of');
    expect(processed.has(id)).toBe(true);
    expect(answer.status).toBe(202);
    expect(answer.body.id).toBe(id);
    expect((await call(platform, `/messages/${id}`, { key })).body.status).toBe('processed');
  }, 30_000);
});
