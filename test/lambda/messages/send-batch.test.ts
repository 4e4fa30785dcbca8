import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { KeyCaller } from '../../../lambda/keys/caller.js';
import { MESSAGE_ID_PATTERN, type MessageEnvelope, type MessageRecord } from '../../../lambda/messages/message.js';
import type { MessageBatchQueue, MessageBatchStore } from '../../../lambda/messages/ports.js';
import { type SendBatchDeps, sendBatch } from '../../../lambda/messages/send-batch.js';
import { type SendRequest, sendMessage } from '../../../lambda/messages/send-message.js';
import { AccountLimits } from '../../../lambda/rate-limits/account-limits.js';
import { RateLimiter } from '../../../lambda/rate-limits/rate-limiter.js';
import { type ApiResult, ResponseHeaders } from '../../../lambda/shared/http.js';
import { logger } from '../../../lambda/shared/powertools.js';
import { HttpProblem } from '../../../lambda/shared/problem.js';
import { loadConfig } from '../../../lib/config/index.js';
import { ManualClock } from '../../support/clock.js';
import { MemoryLimiterStore } from '../../support/memory-limiter-store.js';
import { FakeIdempotencyStore, FakeMessageQueue, FakeMessageStore } from '../../support/message-fakes.js';

/** 2026-11-21 10:15:30.123 UTC. */
const T0 = Date.UTC(2026, 10, 21, 10, 15, 30, 123);
const T0_ISO = '2026-11-21T10:15:30.123Z';
const config = loadConfig();
/** The Free plan: 60 messages a minute. */
const limits = config.plans.free.limits;

/** The message store's batch side, all or nothing per call as the adapter's contract says. */
class FakeBatchStore extends FakeMessageStore implements MessageBatchStore {
  failCreateAll: Error | undefined;
  readonly removedAll: string[][] = [];

  async createAll(records: readonly MessageRecord[]): Promise<void> {
    if (this.failCreateAll) throw this.failCreateAll;
    for (const record of records) await this.create(record);
  }

  async removeAll(ids: readonly string[]): Promise<readonly string[]> {
    this.removedAll.push([...ids]);
    const taken: string[] = [];
    for (const id of ids) if (!(await this.remove(id))) taken.push(id);
    return taken;
  }
}

class FakeBatchQueue extends FakeMessageQueue implements MessageBatchQueue {
  async sendAll(envelopes: readonly MessageEnvelope[]): Promise<void> {
    for (const envelope of envelopes) await this.send(envelope);
  }
}

let logError: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  logError = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function setup() {
  const clock = new ManualClock(T0);
  const limiterStore = new MemoryLimiterStore();
  const limiter = new RateLimiter(limiterStore, clock);
  const messages = new FakeBatchStore();
  const queue = new FakeBatchQueue();
  const idempotency = new FakeIdempotencyStore();
  const deps: SendBatchDeps = {
    limiter,
    messages,
    queue,
    idempotency,
    clock,
    config: config.messages,
    anonymousLimits: config.anonymous,
  };
  const caller: KeyCaller = { kind: 'key', keyId: 'key_1', accountId: 'acct_1', plan: 'free', limits, ban: config.plans.free.ban };
  const accountLimits = new AccountLimits(limiterStore);
  await accountLimits.provision('acct_1', limits, clock.now());
  const batch = (texts: readonly unknown[], headers: Record<string, string> = {}): SendRequest => ({
    caller,
    sourceIp: '203.0.113.7',
    basePath: '',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ messages: texts.map((message) => ({ message })) }),
    isBase64Encoded: false,
  });
  const counts = async () => {
    const usage = await accountLimits.usage('acct_1', clock.now());
    return { minute: usage.minute, day: usage.day };
  };
  return { clock, limiter, messages, queue, idempotency, deps, batch, counts };
}

const texts = (n: number) => Array.from({ length: n }, (_, i) => `message ${i}`);
const dataOf = (result: ApiResult) =>
  (result.body as { data: Array<{ id: string; message: string; status: string; createdAt: string }> }).data;

async function rejection(promise: Promise<unknown>): Promise<HttpProblem> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected an HttpProblem, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpProblem);
  return error as HttpProblem;
}

describe('sendBatch: accepted', () => {
  it('queues every message in request order, stores each record, and counts N against the budget', async () => {
    const { deps, batch, messages, queue, counts } = await setup();
    const headers = new ResponseHeaders();
    const result = await sendBatch(batch(texts(3)), deps, headers);

    expect(result.statusCode).toBe(202);
    const data = dataOf(result);
    expect(data.map((m) => [m.message, m.status, m.createdAt])).toEqual([
      ['message 0', 'queued', T0_ISO],
      ['message 1', 'queued', T0_ISO],
      ['message 2', 'queued', T0_ISO],
    ]);
    for (const m of data) expect(m.id).toMatch(MESSAGE_ID_PATTERN);
    expect(new Set(data.map((m) => m.id)).size).toBe(3);
    expect([...messages.records.keys()]).toEqual(data.map((m) => m.id));
    expect(queue.sent).toEqual(data.map((m) => ({ v: 1, id: m.id, accountId: 'acct_1', createdAt: T0_ISO })));
    expect(await counts()).toEqual({ minute: 3, day: 3 });
    expect(headers.all()['X-RateLimit-Remaining']).toBe('57');
  });
});

describe('sendBatch: refused before anything is counted', () => {
  it('400 names every bad item, stores and counts nothing', async () => {
    const { deps, batch, messages, queue, counts } = await setup();
    const problem = await rejection(sendBatch(batch(['fine', '', 7]), deps, new ResponseHeaders()));
    expect([problem.status, problem.code]).toEqual([400, 'invalid_field']);
    expect(problem.errors?.map((e) => e.field)).toEqual(['messages[1].message', 'messages[2].message']);
    expect(messages.records.size).toBe(0);
    expect(queue.calls).toBe(0);
    expect(await counts()).toEqual({ minute: 0, day: 0 });
  });

  it('429 comes before 400: a bad batch of a spent account is refused for the budget', async () => {
    const { deps, batch, counts } = await setup();
    await sendBatch(batch(texts(60)), deps, new ResponseHeaders());
    const problem = await rejection(sendBatch(batch(['']), deps, new ResponseHeaders()));
    expect([problem.status, problem.code]).toEqual([429, 'rate_limited']);
    expect(await counts()).toEqual({ minute: 60, day: 60 });
  });

  it('429 for the whole batch when fewer than N remain: says how many, counts none of it', async () => {
    const { deps, batch, messages, queue, counts } = await setup();
    await sendBatch(batch(texts(55)), deps, new ResponseHeaders());
    const problem = await rejection(sendBatch(batch(texts(10)), deps, new ResponseHeaders()));
    expect([problem.status, problem.code]).toEqual([429, 'rate_limited']);
    expect(problem.extensions).toMatchObject({ window: 'minute', remaining: 5, requested: 10 });
    expect(problem.detail).toMatch(/^This batch of 10 messages needs 10 of your account's budget for this minute, and 5 remain/);
    expect(problem.headers).toEqual({ 'Retry-After': '30' });
    expect(messages.records.size).toBe(55);
    expect(queue.sent).toHaveLength(55);
    expect(await counts()).toEqual({ minute: 55, day: 55 });
  });

  it('429 says a batch larger than the limit itself can never be accepted', async () => {
    const { deps, batch } = await setup();
    const problem = await rejection(sendBatch(batch(texts(61)), deps, new ResponseHeaders()));
    expect(problem.status).toBe(429);
    expect(problem.detail).toBe(
      'Your account\'s limit is 60 messages per minute, so a batch of 61 can never be accepted: send at most 60 per batch.',
    );
  });
});

describe('sendBatch: a failure after counting leaves nothing half-done', () => {
  it('store down: 503, every record removed, the N refunded, the claim released', async () => {
    const { deps, batch, messages, idempotency, counts } = await setup();
    messages.failCreateAll = new Error('DynamoDB is down');
    const headers = new ResponseHeaders();
    const problem = await rejection(sendBatch(batch(texts(4), { 'Idempotency-Key': 'b-1' }), deps, headers));

    expect([problem.status, problem.code]).toEqual([503, 'service_unavailable']);
    expect(problem.headers).toEqual({ 'Retry-After': '1' });
    expect(messages.removedAll).toHaveLength(1);
    expect(messages.removedAll[0]).toHaveLength(4);
    expect(messages.records.size).toBe(0);
    expect(await counts()).toEqual({ minute: 0, day: 0 });
    expect(idempotency.entries.size).toBe(0);
    expect(headers.all()['X-RateLimit-Remaining']).toBe('60');
    expect(logError).toHaveBeenCalledWith(
      'batch not accepted; compensating',
      expect.objectContaining({ messages: 4, storeError: 'Error: DynamoDB is down' }),
    );
  });

  it('queue down: 503, the records written are removed, the N refunded', async () => {
    const { deps, batch, messages, queue, counts } = await setup();
    queue.failWith = new Error('SQS is down');
    const problem = await rejection(sendBatch(batch(texts(4)), deps, new ResponseHeaders()));
    expect(problem.status).toBe(503);
    expect(messages.records.size).toBe(0);
    expect(messages.removedAll[0]).toHaveLength(4);
    expect(await counts()).toEqual({ minute: 0, day: 0 });
  });

  it('a limiter that fails releases the Idempotency-Key claim', async () => {
    const { deps, batch, limiter, idempotency } = await setup();
    vi.spyOn(limiter, 'consume').mockRejectedValue(new Error('limiter table unavailable'));
    await expect(sendBatch(batch(texts(2), { 'Idempotency-Key': 'b-1' }), deps, new ResponseHeaders())).rejects.toThrow(
      'limiter table unavailable',
    );
    expect(idempotency.entries.size).toBe(0);
  });
});

describe('sendBatch: Idempotency-Key', () => {
  it('the same key and body replay the 202 with the same ids, enqueue nothing and count nothing', async () => {
    const { deps, batch, queue, counts } = await setup();
    const first = await sendBatch(batch(texts(3), { 'Idempotency-Key': 'b-1' }), deps, new ResponseHeaders());
    const again = await sendBatch(batch(texts(3), { 'Idempotency-Key': 'b-1' }), deps, new ResponseHeaders());
    expect(again.statusCode).toBe(202);
    expect(again.headers).toEqual({ 'Idempotent-Replayed': 'true' });
    expect(dataOf(again)).toEqual(dataOf(first));
    expect(queue.sent).toHaveLength(3);
    expect(await counts()).toEqual({ minute: 3, day: 3 });
  });

  it('the same key with another body is 409, and so is a key first used for a single send', async () => {
    const { deps, batch, queue } = await setup();
    await sendBatch(batch(texts(3), { 'Idempotency-Key': 'b-1' }), deps, new ResponseHeaders());
    const other = await rejection(sendBatch(batch(texts(2), { 'Idempotency-Key': 'b-1' }), deps, new ResponseHeaders()));
    expect([other.status, other.code]).toEqual([409, 'idempotency_conflict']);

    const single = batch([], { 'Idempotency-Key': 's-1' });
    await sendMessage({ ...single, body: '{"message":"message 0"}' }, { ...deps, queue }, new ResponseHeaders());
    const asBatch = await rejection(sendBatch(batch(['message 0'], { 'Idempotency-Key': 's-1' }), deps, new ResponseHeaders()));
    expect([asBatch.status, asBatch.code]).toEqual([409, 'idempotency_conflict']);
  });
});
