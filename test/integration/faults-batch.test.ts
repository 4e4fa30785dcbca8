import { SendMessageBatchCommand, type SendMessageBatchCommandOutput, SQSClient } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, DynamoDBDocumentClient, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import type { QueuePoller } from '../../local/queue-poller.js';
import { watchSettled } from '../support/queue-events.js';
import { DynamoDbMessageStore } from '../../lambda/messages/dynamodb-message-store.js';
import { createDocumentClient } from '../../lambda/shared/dynamodb.js';
import { LOCAL_AWS } from '../../local/emulators.js';
import { type Answer, call, freshKey, rateHeaders, startTestPlatform, type TestPlatform } from '../support/platform.js';

// A batch meets a dependency failing for one of its chunks: the whole batch is 503, its budget
// comes back exactly, and no record claims `queued`. And a batch's message redelivered to a
// worker is processed once.
let platform: TestPlatform;
let transitions: Map<string, number>;
let processed: MockInstance<DynamoDbMessageStore['markProcessed']>;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.stop());
beforeEach(() => {
  transitions = new Map();
  const original = DynamoDbMessageStore.prototype.markProcessed;
  processed = vi
    .spyOn(DynamoDbMessageStore.prototype, 'markProcessed')
    .mockImplementation(async function (this: DynamoDbMessageStore, id, at, attempt) {
      const result = await original.call(this, id, at, attempt);
      if (result.result === 'updated') transitions.set(id, (transitions.get(id) ?? 0) + 1);
      return result;
    });
});
afterEach(() => vi.restoreAllMocks());

const batchOf = (key: string, prefix: string, n: number) =>
  call(platform, '/messages/batch', {
    key,
    method: 'POST',
    body: { messages: Array.from({ length: n }, (_, i) => ({ message: `${prefix} ${i}` })) },
  });

async function spent(key: string): Promise<number> {
  const read = await call(platform, '/messages/msg_7ZZZZZZZZZZZZZZZZZZZZZZZZZ', { key });
  const { limit, remaining } = rateHeaders(read.headers);
  return limit - remaining;
}

async function storedWithPrefix(prefix: string): Promise<Array<Record<string, unknown>>> {
  const documents = createDocumentClient({ ...LOCAL_AWS, endpoint: platform.endpoints.dynamodb });
  try {
    const out = await documents.send(
      new ScanCommand({
        TableName: platform.tables.messages,
        FilterExpression: 'begins_with(message, :p)',
        ExpressionAttributeValues: { ':p': `${prefix} ` },
        ConsistentRead: true,
      }),
    );
    return out.Items ?? [];
  } finally {
    documents.destroy();
  }
}

function expectRefused(answer: Answer) {
  expect(answer.status).toBe(503);
  expect(answer.headers.get('content-type')).toBe('application/problem+json');
  expect(answer.body.code).toBe('service_unavailable');
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

/** Ids of the envelopes in a SendMessageBatch or of the records in a BatchWriteItem/PutItem. */
const envelopeIds = (command: SendMessageBatchCommand) =>
  (command.input.Entries ?? []).map((e) => (JSON.parse(e.MessageBody as string) as { id: string }).id);

describe('a batch whose dependency fails for one chunk', () => {
  it('queue: SQS fails every entry of the second chunk → 503, budget refunded exactly, no record claims queued', async () => {
    const key = await freshKey(platform, 'pro', 'batch queue fault');
    expect((await batchOf(key, 'before-q', 5)).status).toBe(202);
    let chunks = 0;
    let failing: Set<string> | undefined;
    const enqueued = new Set<string>();
    const original = SQSClient.prototype.send;
    vi.spyOn(SQSClient.prototype, 'send').mockImplementation(async function (this: SQSClient, ...args: unknown[]) {
      const command = args[0];
      if (command instanceof SendMessageBatchCommand) {
        const ids = envelopeIds(command);
        for (const id of ids) enqueued.add(id);
        if (failing === undefined && ++chunks === 2) failing = new Set(ids);
        if (ids.some((id) => failing?.has(id))) {
          // A partial failure on SQS's side, as SendMessageBatch reports it: retried, then given up.
          const failed: SendMessageBatchCommandOutput = {
            Successful: [],
            Failed: (command.input.Entries ?? []).map((e) => ({ Id: e.Id, SenderFault: false, Code: 'InternalError', Message: 'injected' })),
            $metadata: {},
          };
          return failed;
        }
      }
      return (original as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    });
    const watch = watchSettled(platform.worker as QueuePoller);
    const reads = vi.spyOn(DynamoDbMessageStore.prototype, 'get');
    const answer = await batchOf(key, 'fault-q', 35);
    expectRefused(answer);
    expect(failing?.size).toBe(10);
    expect(rateHeaders(answer.headers).remaining).toBe(300 - 5);
    expect(await spent(key)).toBe(5);
    expect(await storedWithPrefix('fault-q')).toEqual([]);
    // The chunks that did reach the queue become visible once the request settled, as orphans:
    // the worker drops them and processes none (their records were deleted before).
    expect(enqueued.size).toBe(35);
    // Every envelope that reached the queue (all but the failing chunk's) settled by the worker:
    // orphans go on their third receive.
    await watch.until([...enqueued].filter((id) => !failing?.has(id)));
    watch.stop();
    expect([...enqueued].filter((id) => transitions.has(id))).toEqual([]);
    // The worker read them (no record) and dropped them: it never got as far as a transition.
    expect(reads.mock.calls.filter(([id]) => enqueued.has(id)).length).toBeGreaterThan(0);
    expect(processed.mock.calls.filter(([id]) => enqueued.has(id))).toEqual([]);
    reads.mockRestore();
    expect(await storedWithPrefix('fault-q')).toEqual([]);
  }, 40_000);

  it('store: DynamoDB fails the second chunk of records → 503, budget refunded exactly, no record claims queued', async () => {
    const key = await freshKey(platform, 'pro', 'batch store fault');
    let chunks = 0;
    let failing: Set<string> | undefined;
    const written = new Set<string>();
    const watch = watchSettled(platform.worker as QueuePoller);
    const original = DynamoDBDocumentClient.prototype.send;
    vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(async function (
      this: DynamoDBDocumentClient,
      ...args: unknown[]
    ) {
      const command = args[0];
      let ids: string[] = [];
      if (command instanceof BatchWriteCommand) {
        ids = Object.values(command.input.RequestItems ?? {}).flatMap((requests) =>
          requests.flatMap((r) => (r.PutRequest ? [String(r.PutRequest.Item?.id)] : [])),
        );
        for (const id of ids) written.add(id);
        if (ids.length > 0 && failing === undefined && ++chunks === 2) failing = new Set(ids);
      } else if (command instanceof PutCommand) {
        ids = [String(command.input.Item?.id)];
      }
      if (ids.some((id) => failing?.has(id))) {
        throw Object.assign(new Error('injected: internal server error'), { name: 'InternalServerError', $metadata: {} });
      }
      return (original as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    });
    const answer = await batchOf(key, 'fault-s', 60);
    expectRefused(answer);
    expect(failing?.size).toBe(25);
    expect(rateHeaders(answer.headers).remaining).toBe(300);
    expect(await spent(key)).toBe(0);
    // The chunks that were written are deleted again; their envelopes are orphans, never processed.
    expect(await storedWithPrefix('fault-s')).toEqual([]);
    // Every envelope (the queue took them all) settled by the worker: dropped as orphans.
    expect(written.size).toBe(60);
    await watch.until(written);
    watch.stop();
    expect(transitions.size).toBe(0);
  }, 40_000);
});

describe('worker redelivery of a batch', () => {
  it('processes each message of a batch exactly once when the worker dies mid-way', async () => {
    const key = await freshKey(platform, 'pro', 'batch redelivery');
    const worker = platform.worker;
    if (!worker) throw new Error('the worker is off');
    await worker.stop();
    const answer = await batchOf(key, 'redeliver', 20);
    expect(answer.status).toBe(202);
    const ids = (answer.body.data as Array<{ id: string }>).map((m) => m.id);
    const killed = worker.killDuringNextBatch();
    const watch = watchSettled(worker);
    worker.start();
    const batch = await killed;
    expect(batch.handled.length).toBeGreaterThan(0);
    expect(batch.handled.length).toBeLessThan(batch.received.length);
    // Every envelope handled and deleted (the killed batch's after its redelivery): none can come again.
    await watch.until(ids);
    watch.stop();
    const states = await Promise.all(ids.map(async (id) => (await call(platform, `/messages/${id}`, { key })).body.status));
    expect(states.every((s) => s === 'processed')).toBe(true);
    for (const id of ids) expect(transitions.get(id), id).toBe(1);
    const handled = batch.handled.map((body) => (JSON.parse(body) as { id: string }).id);
    // Redelivered after the kill, the handled half was found final by its read: no second transition.
    const calls = processed.mock.calls.filter(([id]) => handled.includes(id));
    expect(calls.length).toBe(handled.length);
  }, 60_000);
});
