import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { DynamoDbMessageStore } from '../../lambda/messages/dynamodb-message-store.js';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lambda/shared/dynamodb.js';
import { LOCAL_AWS } from '../../local/emulators.js';
import type { QueuePoller } from '../../local/queue-poller.js';
import { watchSettled } from '../support/queue-events.js';
import {
  type Answer,
  call,
  eventually,
  many,
  rateHeaders,
  send,
  startTestPlatform,
  type TestPlatform, freshKey } from '../support/platform.js';

// Each fault must leave every accepted (202) message processed, and none processed twice: the
// worker's queued|failed → processed transitions ('updated') are counted per message id.
let transitions: Map<string, number>;
let poisoned: Set<string>;
let spy: MockInstance<DynamoDbMessageStore['markProcessed']>;

beforeEach(() => {
  transitions = new Map();
  poisoned = new Set();
  const original = DynamoDbMessageStore.prototype.markProcessed;
  spy = vi
    .spyOn(DynamoDbMessageStore.prototype, 'markProcessed')
    .mockImplementation(async function (this: DynamoDbMessageStore, id, at, attempt) {
      if (poisoned.has(id)) throw new Error(`injected fault for ${id}`);
      const result = await original.call(this, id, at, attempt);
      if (result.result === 'updated') transitions.set(id, (transitions.get(id) ?? 0) + 1);
      return result;
    });
});
afterEach(() => spy.mockRestore());

const statusOf = async (platform: TestPlatform, key: string, id: string) =>
  (await call(platform, `/messages/${id}`, { key })).body.status as string;

async function allProcessed(platform: TestPlatform, key: string, ids: readonly string[], timeoutMs = 30_000) {
  await eventually(async () => {
    const states = await Promise.all(ids.map((id) => statusOf(platform, key, id)));
    return states.every((s) => s === 'processed') ? true : undefined;
  }, timeoutMs);
}

function expectEachProcessedOnce(ids: readonly string[]) {
  for (const id of ids) expect(transitions.get(id) ?? 0, id).toBe(1);
  expect([...transitions.keys()].sort()).toEqual([...ids].sort());
}

async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
}

describe('SQS stopped during a burst', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform?.stop());

  it('answers 202 or 503 (refunded), and after SQS returns every 202 is processed exactly once', async () => {
    const key = await freshKey(platform, 'free', 'burst');
    // From the start: envelopes accepted before the outage are settled during the burst.
    const watch = watchSettled(platform.worker as QueuePoller);
    const count = 40;
    let stopped: Promise<void> | undefined;
    const answers = await many(count, 8, async (i): Promise<Answer> => {
      if (i === 12) stopped = platform.stopQueueService();
      return send(platform, key, `burst ${i}`);
    });
    await stopped;
    const accepted = answers.filter((a) => a.status === 202);
    const refused = answers.flatMap((a, i) => (a.status === 202 ? [] : [{ a, i }]));
    expect(accepted.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const { a } of refused) {
      expect(a.status).toBe(503);
      expect(a.headers.get('content-type')).toBe('application/problem+json');
      expect(a.body.code).toBe('service_unavailable');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Refunds: the budget spent is exactly the accepted count (a GET does not spend).
    const read = await call(platform, '/messages/msg_7ZZZZZZZZZZZZZZZZZZZZZZZZZ', { key });
    const budget = rateHeaders(read.headers);
    expect(budget.limit - budget.remaining).toBe(accepted.length);

    const ids = accepted.map((a) => a.body.id as string);
    await platform.restartQueueService();
    // Every accepted envelope handled and deleted: no redelivery can come after this.
    await watch.until(ids);
    watch.stop();
    await allProcessed(platform, key, ids);
    expectEachProcessedOnce(ids);

    // No record for a refused request: the Messages table holds exactly the accepted ones.
    const documents = createDocumentClient({ ...LOCAL_AWS, endpoint: platform.endpoints.dynamodb });
    const stored = await documents.send(
      new ScanCommand({
        TableName: platform.tables.messages,
        FilterExpression: 'begins_with(message, :p)',
        ExpressionAttributeValues: { ':p': 'burst ' },
      }),
    );
    documents.destroy();
    expect((stored.Items ?? []).map((item) => item.id as string).sort()).toEqual([...ids].sort());
    const refusedTexts = new Set(refused.map(({ i }) => `burst ${i}`));
    expect((stored.Items ?? []).filter((item) => refusedTexts.has(item.message as string))).toEqual([]);
    console.info(`SQS outage: ${accepted.length} accepted, ${refused.length} refused (503), all processed once`);
  });
});

describe('DynamoDB stopped', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ worker: false });
  });
  afterAll(() => platform?.stop());

  it('answers 503 and enqueues nothing for a refused request', async () => {
    const key = platform.demoKeys.pro;
    const before = await send(platform, key, 'before the outage');
    expect(before.status).toBe(202);
    await platform.stopDatabaseService();

    const answers = await many(10, 5, (i) => send(platform, key, `outage ${i}`));
    for (const a of answers) {
      expect(a.status).toBe(503);
      expect(a.headers.get('content-type')).toBe('application/problem+json');
      expect(a.body.code).toBe('service_unavailable');
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // The queue (the worker is off) holds the one accepted envelope and nothing else.
    const sqs = new SQSClient({ ...LOCAL_AWS, endpoint: platform.endpoints.sqs });
    expect(await queueDepth(sqs, platform.queues.queueUrl)).toBe(1);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: platform.queues.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    sqs.destroy();
    expect(Messages.map((m) => (JSON.parse(m.Body as string) as { id: string }).id)).toEqual([before.body.id]);
    expect(transitions.size).toBe(0);
  });
});

describe('worker faults', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform?.stop());

  it('redelivers a batch whose worker died mid-way, and processes each message exactly once', async () => {
    const key = platform.demoKeys.pro;
    const worker = platform.worker;
    if (!worker) throw new Error('the worker is off');
    // Queue the messages first, so the batch that meets the kill is a full one.
    await worker.stop();
    const answers = await many(20, 10, (i) => send(platform, key, `killed ${i}`));
    expect(answers.every((a) => a.status === 202)).toBe(true);
    const killed = worker.killDuringNextBatch();
    const ids = answers.map((a) => a.body.id as string);
    const watch = watchSettled(worker);
    worker.start();
    const batch = await killed;
    const idOf = (body: string) => (JSON.parse(body) as { id: string }).id;
    const handled = batch.handled.map(idOf);
    expect(batch.received.length).toBeGreaterThan(1);
    expect(handled.length).toBeGreaterThan(0);
    expect(handled.length).toBeLessThan(batch.received.length);

    // The killed batch comes back after the visibility timeout; once every envelope is deleted, none can.
    await watch.until(ids);
    watch.stop();
    await allProcessed(platform, key, ids);
    expectEachProcessedOnce(ids);
    // The handled half was processed before the kill, then redelivered and found final by its
    // read: the redelivery neither runs the processor nor writes the transition again.
    const calls = spy.mock.calls.filter(([id]) => handled.includes(id));
    expect(calls.length).toBe(handled.length);
    console.info(
      `worker killed: batch of ${batch.received.length}, ${handled.length} handled before the kill; ` +
      `${ids.length} processed once, ${calls.length} markProcessed calls for the handled half`,
    );
  });

  it('dead-letters a poison message (failed), and after the fix the redrive processes it once', async () => {
    const key = platform.demoKeys.pro;
    const sqs = new SQSClient({ ...LOCAL_AWS, endpoint: platform.endpoints.sqs });
    // Receives are counted by SQS: fail every attempt for ids sent while the fault is on.
    const original = spy.getMockImplementation();
    let faulty = true;
    let poisonId: string | undefined;
    spy.mockImplementation(async function (this: DynamoDbMessageStore, id, at, attempt) {
      if (faulty && poisonId === undefined) poisonId = id;
      if (faulty && id === poisonId) poisoned.add(id);
      return original?.call(this, id, at, attempt) as ReturnType<DynamoDbMessageStore['markProcessed']>;
    });
    const answer = await send(platform, key, 'poison');
    expect(answer.status).toBe(202);
    const id = answer.body.id as string;

    await eventually(async () => ((await statusOf(platform, key, id)) === 'failed' ? true : undefined), 30_000);
    expect(poisonId).toBe(id);
    await eventually(
      async () => ((await queueDepth(sqs, platform.queues.deadLetterQueueUrl)) === 1 ? true : undefined),
      15_000,
    );
    const attempts = spy.mock.calls.filter(([calledId]) => calledId === id).length;
    expect(attempts).toBe(platform.config.messages.maxReceiveCount);
    expect(transitions.get(id)).toBeUndefined();

    // The fault is fixed; the documented redrive moves it back and the worker processes it.
    faulty = false;
    poisoned.clear();
    const watch = watchSettled(platform.worker as QueuePoller);
    expect(await platform.redriveDeadLetters()).toBe(1);
    expect(await queueDepth(sqs, platform.queues.deadLetterQueueUrl)).toBe(0);
    await watch.until([id]);
    watch.stop();
    await allProcessed(platform, key, [id]);
    expectEachProcessedOnce([id]);
    sqs.destroy();
    console.info(`poison: ${attempts} failed attempts, dead-lettered (failed), redriven, processed once`);
  });
});
