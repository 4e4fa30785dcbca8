import { decodeTime } from 'ulid';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnonymousReason, KeyCaller } from '../../../lambda/keys/caller.js';
import { MESSAGE_ID_PATTERN } from '../../../lambda/messages/message.js';
import { type SendMessageDeps, type SendRequest, sendMessage } from '../../../lambda/messages/send-message.js';
import { MemoryLimiterStore } from '../../support/memory-limiter-store.js';
import { AccountLimits } from '../../../lambda/rate-limits/account-limits.js';
import { RateLimiter } from '../../../lambda/rate-limits/rate-limiter.js';
import { ManualClock } from '../../support/clock.js';
import { type ApiResult, ResponseHeaders } from '../../../lambda/shared/http.js';
import { logger } from '../../../lambda/shared/powertools.js';
import { HttpProblem } from '../../../lambda/shared/problem.js';
import { loadConfig, type RateLimits } from '../../../lib/config/index.js';
import { FakeIdempotencyStore, FakeMessageQueue, FakeMessageStore } from '../../support/message-fakes.js';

/** 2026-11-21 10:15:30.123 UTC. */
const T0 = Date.UTC(2026, 10, 21, 10, 15, 30, 123);
const T0_ISO = '2026-11-21T10:15:30.123Z';
const MINUTE_END_SEC = Date.UTC(2026, 10, 21, 10, 16, 0) / 1000;
const IP = '203.0.113.7';
const config = loadConfig();

let logError: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  logError = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function setup(limits: RateLimits = config.plans.free.limits, anonymousLimits = config.anonymous) {
  const clock = new ManualClock(T0);
  const limiterStore = new MemoryLimiterStore();
  const limiter = new RateLimiter(limiterStore, clock);
  const messages = new FakeMessageStore();
  const queue = new FakeMessageQueue();
  const idempotency = new FakeIdempotencyStore();
  const deps: SendMessageDeps = {
    limiter,
    messages,
    queue,
    idempotency,
    clock,
    config: config.messages,
    anonymousLimits,
  };
  const caller: KeyCaller = {
    kind: 'key',
    keyId: 'key_1',
    accountId: 'acct_1',
    plan: 'free',
    limits,
    ban: config.plans.free.ban,
  };
  // The account's budget, as the account service provisions it.
  const accountLimits = new AccountLimits(limiterStore);
  await accountLimits.provision('acct_1', limits, clock.now());
  const request = (overrides: Partial<SendRequest> = {}): SendRequest => ({
    caller,
    sourceIp: IP,
    basePath: '',
    headers: { 'Content-Type': 'application/json' },
    body: '{"message":"Hello, world"}',
    isBase64Encoded: false,
    ...overrides,
  });
  const withKey = (idempotencyKey: string, body = '{"message":"Hello, world"}') =>
    request({ headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey }, body });
  /** The account's counts in the current windows (the key's own share is the same: it is the account's only key). */
  const counts = async () => {
    const usage = await accountLimits.usage('acct_1', clock.now());
    return { minute: usage.minute, day: usage.day };
  };
  return { clock, limiterStore, accountLimits, limiter, messages, queue, idempotency, deps, request, withKey, counts };
}

/** The HttpProblem a promise rejects with (the test fails if it resolves or rejects with something else). */
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

const idOf = (result: ApiResult) => (result.body as { id: string }).id;

describe('sendMessage: accepted', () => {
  it('answers 202 with the queued record, writes it and enqueues its envelope', async () => {
    const { deps, request, messages, queue } = await setup();
    const headers = new ResponseHeaders();
    const result = await sendMessage(request(), deps, headers);
    const id = idOf(result);

    expect(id).toMatch(MESSAGE_ID_PATTERN);
    expect(result).toEqual({
      statusCode: 202,
      headers: { Location: `/messages/${id}` },
      body: { id, message: 'Hello, world', status: 'queued', createdAt: T0_ISO },
    });
    expect([...messages.records.values()]).toEqual([
      {
        id,
        accountId: 'acct_1',
        keyId: 'key_1',
        message: 'Hello, world',
        status: 'queued',
        createdAt: T0_ISO,
        expiresAt: Math.floor(T0 / 1000) + 30 * 86_400,
      },
    ]);
    expect(queue.sent).toEqual([{ v: 1, id, accountId: 'acct_1', createdAt: T0_ISO }]);
    expect(headers.all()).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '59',
      'X-RateLimit-Reset': String(MINUTE_END_SEC),
      'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
      RateLimit: '"minute";r=59;t=30',
    });
  });

  it('touches each port once on the success path: consume 1, create 1, send 1, nothing else', async () => {
    const { deps, request, messages, queue, idempotency, limiter } = await setup();
    const consume = vi.spyOn(limiter, 'consume');
    const peek = vi.spyOn(limiter, 'peek');
    const refund = vi.spyOn(limiter, 'refund');
    await sendMessage(request(), deps, new ResponseHeaders());
    expect(consume).toHaveBeenCalledTimes(1);
    expect(peek).not.toHaveBeenCalled();
    expect(refund).not.toHaveBeenCalled();
    expect(messages.calls).toMatchObject({ create: 1, get: 0, remove: 0, markProcessed: 0, markFailed: 0 });
    expect(queue.calls).toBe(1);
    expect(idempotency.calls).toEqual({ claim: 0, takeOver: 0, release: 0 });
  });

  it('encodes the acceptance time in the ULID of the id', async () => {
    const { deps, request, clock } = await setup();
    // Later than any other test of this file: the ULID factory is monotonic across calls.
    const later = Date.UTC(2027, 0, 2, 3, 4, 5, 678);
    clock.set(later);
    const result = await sendMessage(request(), deps, new ResponseHeaders());
    expect(decodeTime(idOf(result).slice('msg_'.length))).toBe(later);
    expect((result.body as { createdAt: string }).createdAt).toBe('2027-01-02T03:04:05.678Z');
  });

  it('puts the base path in Location', async () => {
    const { deps, request } = await setup();
    const result = await sendMessage(request({ basePath: '/v1' }), deps, new ResponseHeaders());
    expect(result.headers).toEqual({ Location: `/v1/messages/${idOf(result)}` });
  });

  it('gives increasing ids to messages sent in the same millisecond', async () => {
    const { deps, request } = await setup();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(idOf(await sendMessage(request(), deps, new ResponseHeaders())));
    expect(new Set(ids).size).toBe(5);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe('sendMessage: failures before the 202 leave nothing half-done', () => {
  it('queue down: 503 with Retry-After, record removed, budget refunded, claim released', async () => {
    const { deps, request, withKey, messages, queue, idempotency, counts } = await setup();
    await sendMessage(request(), deps, new ResponseHeaders());
    expect(await counts()).toEqual({ minute: 1, day: 1 });

    queue.failWith = new Error('SQS is down');
    const headers = new ResponseHeaders();
    const problem = await rejection(sendMessage(withKey('order-1'), deps, headers));

    expect([problem.status, problem.code]).toEqual([503, 'service_unavailable']);
    expect(problem.headers).toEqual({ 'Retry-After': '1' });
    expect(logError).toHaveBeenCalledWith(
      'message not accepted; compensating',
      expect.objectContaining({ queueError: 'Error: SQS is down' }),
    );
    expect(messages.records.size).toBe(1); // only the first, accepted message
    expect(messages.calls.remove).toBe(1);
    expect(await counts()).toEqual({ minute: 1, day: 1 });
    expect(idempotency.entries.size).toBe(0);
    // The headers say the request did not count.
    expect(headers.all()['X-RateLimit-Remaining']).toBe('59');
  });

  it('queue down: a retry with the same Idempotency-Key is handled as new once the queue is back', async () => {
    const { deps, withKey, queue, messages } = await setup();
    queue.failWith = new Error('SQS is down');
    await rejection(sendMessage(withKey('order-1'), deps, new ResponseHeaders()));
    queue.failWith = undefined;
    const result = await sendMessage(withKey('order-1'), deps, new ResponseHeaders());
    expect(result.statusCode).toBe(202);
    expect(result.headers).not.toHaveProperty('Idempotent-Replayed');
    expect(queue.sent.map((e) => e.id)).toEqual([idOf(result)]);
    expect([...messages.records.keys()]).toEqual([idOf(result)]);
  });

  it('store down while the queue took the envelope: 503, budget refunded, claim released, the record removed all the same', async () => {
    const { deps, withKey, messages, queue, idempotency, counts } = await setup();
    messages.failCreate = new Error('DynamoDB is down');
    const headers = new ResponseHeaders();
    const problem = await rejection(sendMessage(withKey('order-1'), deps, headers));
    expect([problem.status, problem.code]).toEqual([503, 'service_unavailable']);
    expect(problem.headers).toEqual({ 'Retry-After': '1' });
    // The envelope is an orphan that the worker drops; no record claims `queued`.
    expect(queue.sent).toHaveLength(1);
    expect(messages.records.size).toBe(0);
    // A failed (or aborted) write may still have landed: the delete makes sure.
    expect(messages.calls.remove).toBe(1);
    expect(await counts()).toEqual({ minute: 0, day: 0 });
    expect(idempotency.entries.size).toBe(0);
    expect(headers.all()['X-RateLimit-Remaining']).toBe('60');
  });

  it('both down: 503 and the budget refunded', async () => {
    const { deps, request, messages, queue, counts } = await setup();
    messages.failCreate = new Error('DynamoDB is down');
    queue.failWith = new Error('SQS is down');
    expect((await rejection(sendMessage(request(), deps, new ResponseHeaders()))).status).toBe(503);
    expect(messages.calls.remove).toBe(1);
    expect(await counts()).toEqual({ minute: 0, day: 0 });
  });

  it('a record whose write landed but failed to answer, already processed by the worker: 202, counted, the key kept', async () => {
    const { deps, withKey, messages, idempotency, counts } = await setup();
    messages.create = async (record) => {
      messages.records.set(record.id, { ...record, status: 'processed' });
      throw new Error('TimeoutError: the answer never came');
    };
    const result = await sendMessage(withKey('order-1'), deps, new ResponseHeaders());
    expect(result.statusCode).toBe(202);
    expect(messages.records.size).toBe(1);
    expect(await counts()).toEqual({ minute: 1, day: 1 });
    expect(idempotency.entries.size).toBe(1);
  });

  it('a record that could not be removed either: never a 503 (it may land), a 500 naming the message to look up', async () => {
    const { deps, request, messages, queue } = await setup();
    messages.failCreate = new Error('DynamoDB timed out');
    messages.failRemove = new Error('DynamoDB is down');
    const problem = await rejection(sendMessage(request(), deps, new ResponseHeaders()));
    expect([problem.status, problem.code]).toEqual([500, 'internal_error']);
    expect(problem.extensions).toEqual({ messageIds: [queue.sent[0]?.id] });
    expect(problem.detail).toMatch(/whether it was stored is not known/);
  });
});

describe('sendMessage: callers without a valid key', () => {
  it.each([
    ['missing', 'Missing API key. Send it as "Authorization: Bearer <key>".'],
    ['malformed', 'The Authorization header must use the Bearer scheme: "Authorization: Bearer <key>".'],
    ['invalid', 'The API key is invalid or has been revoked.'],
  ] as const)('%s key → 401 with WWW-Authenticate and the anonymous budget in the headers', async (reason, detail) => {
    const { deps, request, limiterStore, messages, queue, clock } = await setup();
    clock.set(T0 + 10_000);
    const headers = new ResponseHeaders();
    const problem = await rejection(
      sendMessage(request({ caller: { kind: 'anonymous', reason: reason as AnonymousReason } }), deps, headers),
    );
    expect({ status: problem.status, code: problem.code, detail: problem.detail, headers: problem.headers }).toEqual({
      status: 401,
      code: 'invalid_api_key',
      detail,
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
    expect(headers.all()).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '59',
      'X-RateLimit-Reset': String(MINUTE_END_SEC),
      'RateLimit-Policy': '"minute";q=60;w=60, "day";q=10000;w=86400',
      RateLimit: '"minute";r=59;t=20',
    });
    expect(await limiterStore.get(`ip#${IP}`)).toMatchObject({ minute: { count: 1 }, day: { count: 1 } });
    expect(messages.calls.create + queue.calls).toBe(0);
  });

  it('answers 429 instead of 401 once the anonymous budget of the IP is spent', async () => {
    const { deps, request } = await setup(config.plans.free.limits, { perMinute: 2, perDay: 100 });
    const anonymous = request({ caller: { kind: 'anonymous', reason: 'missing' } });
    expect((await rejection(sendMessage(anonymous, deps, new ResponseHeaders()))).status).toBe(401);
    expect((await rejection(sendMessage(anonymous, deps, new ResponseHeaders()))).status).toBe(401);
    const problem = await rejection(sendMessage(anonymous, deps, new ResponseHeaders()));
    expect([problem.status, problem.code]).toEqual([429, 'rate_limited']);
    // Another IP has its own budget.
    const other = request({ caller: { kind: 'anonymous', reason: 'missing' }, sourceIp: '198.51.100.1' });
    expect((await rejection(sendMessage(other, deps, new ResponseHeaders()))).status).toBe(401);
  });

  it('answers 401 for a key the limiter knows as revoked, and counts nothing', async () => {
    const { deps, request, accountLimits, counts, queue, clock } = await setup();
    await accountLimits.markRevoked('acct_1', 'key_1', clock.now() + 35_000, clock.now());
    const problem = await rejection(sendMessage(request(), deps, new ResponseHeaders()));
    expect([problem.status, problem.code]).toEqual([401, 'invalid_api_key']);
    expect(await counts()).toEqual({ minute: 0, day: 0 });
    expect(queue.calls).toBe(0);
  });
});

describe('sendMessage: invalid requests', () => {
  it('answers 400 without consuming budget, with rate-limit headers', async () => {
    const { deps, request, counts, queue } = await setup();
    const headers = new ResponseHeaders();
    const problem = await rejection(sendMessage(request({ body: '{"text":"hi"}' }), deps, headers));
    expect([problem.status, problem.code]).toEqual([400, 'missing_field']);
    expect(headers.all()['X-RateLimit-Remaining']).toBe('60');
    expect(await counts()).toEqual({ minute: 0, day: 0 });
    expect(queue.calls).toBe(0);
  });

  it('answers 429 before 400 once the budget is spent', async () => {
    const { deps, request } = await setup({ perMinute: 1, perDay: 100 });
    await sendMessage(request(), deps, new ResponseHeaders());
    const problem = await rejection(sendMessage(request({ body: 'nope' }), deps, new ResponseHeaders()));
    expect([problem.status, problem.code]).toEqual([429, 'rate_limited']);
    expect(problem.headers).toEqual({ 'Retry-After': '30' });
  });
});

describe('sendMessage: Idempotency-Key', () => {
  it('replays the original answer for the same key and body, enqueues nothing and consumes no budget', async () => {
    const { deps, withKey, clock, queue, messages, counts, limiter } = await setup();
    const first = await sendMessage(withKey('order-1'), deps, new ResponseHeaders());
    clock.advance(5_000);
    const consume = vi.spyOn(limiter, 'consume');
    const headers = new ResponseHeaders();
    // Same message, different JSON formatting: still the same request.
    const replay = await sendMessage(withKey('order-1', '{ "message" : "Hello, world" }'), deps, headers);

    expect(replay).toEqual({
      statusCode: 202,
      headers: { Location: `/messages/${idOf(first)}`, 'Idempotent-Replayed': 'true' },
      body: first.body,
    });
    expect(consume).not.toHaveBeenCalled();
    expect(queue.sent).toHaveLength(1);
    expect(messages.calls.create).toBe(1);
    expect(await counts()).toEqual({ minute: 1, day: 1 });
    expect(headers.all()['X-RateLimit-Remaining']).toBe('59');
  });

  it('replays even when the budget is spent (a replay is never counted)', async () => {
    const { deps, withKey, request } = await setup({ perMinute: 2, perDay: 100 });
    const first = await sendMessage(withKey('order-1'), deps, new ResponseHeaders());
    await sendMessage(request(), deps, new ResponseHeaders());
    const replay = await sendMessage(withKey('order-1'), deps, new ResponseHeaders());
    expect(idOf(replay)).toBe(idOf(first));
  });

  it('refuses the same key with a different body with 409 idempotency_conflict', async () => {
    const { deps, withKey, queue, counts, idempotency } = await setup();
    const first = await sendMessage(withKey('order-1'), deps, new ResponseHeaders());
    const problem = await rejection(
      sendMessage(withKey('order-1', '{"message":"Goodbye"}'), deps, new ResponseHeaders()),
    );
    expect([problem.status, problem.code]).toEqual([409, 'idempotency_conflict']);
    expect(queue.sent).toHaveLength(1);
    expect(await counts()).toEqual({ minute: 1, day: 1 });
    // The original claim stays.
    expect(idempotency.entries.get('key_1#order-1')?.messageId).toBe(idOf(first));
  });

  it('scopes the claim to the API key', async () => {
    const { deps, withKey, idempotency } = await setup();
    await sendMessage(withKey('order-1'), deps, new ResponseHeaders());
    expect([...idempotency.entries.keys()]).toEqual(['key_1#order-1']);
  });

  it('answers 409 idempotency_in_progress while a claim without a record is younger than 30 s', async () => {
    const { deps, withKey, clock, messages, queue, counts } = await setup();
    const first = await sendMessage(withKey('order-1'), deps, new ResponseHeaders());
    // The earlier request holds the claim but its record is not there (it is still running, or it died).
    messages.records.delete(idOf(first));
    clock.set(T0 + 29_999);
    const problem = await rejection(sendMessage(withKey('order-1'), deps, new ResponseHeaders()));
    expect([problem.status, problem.code]).toEqual([409, 'idempotency_in_progress']);
    expect(problem.headers).toEqual({ 'Retry-After': '1' });
    expect(queue.sent).toHaveLength(1);
    // The clock is in the next minute by now: the day shows that the 409 consumed nothing.
    expect(await counts()).toEqual({ minute: 0, day: 1 });
  });

  it('takes over a claim without a record from 30 s on and handles the request as new', async () => {
    const { deps, withKey, clock, messages, queue, idempotency, counts } = await setup();
    const first = await sendMessage(withKey('order-1'), deps, new ResponseHeaders());
    messages.records.delete(idOf(first));
    clock.set(T0 + 30_000);
    const result = await sendMessage(withKey('order-1'), deps, new ResponseHeaders());
    expect(result.statusCode).toBe(202);
    expect(result.headers).toEqual({ Location: `/messages/${idOf(result)}` });
    expect(idOf(result)).not.toBe(idOf(first));
    expect(idempotency.calls.takeOver).toBe(1);
    expect(idempotency.entries.get('key_1#order-1')?.messageId).toBe(idOf(result));
    expect(queue.sent.map((e) => e.id)).toEqual([idOf(first), idOf(result)]);
    // 10:16:00.123 is in the next minute: the day holds both requests.
    expect(await counts()).toEqual({ minute: 1, day: 2 });
  });

  it('releases the claim when the limiter refuses, so the key can be used once the window opens', async () => {
    const { deps, request, withKey, clock, idempotency, messages } = await setup({ perMinute: 1, perDay: 100 });
    await sendMessage(request(), deps, new ResponseHeaders());
    const problem = await rejection(sendMessage(withKey('order-2'), deps, new ResponseHeaders()));
    expect([problem.status, problem.code]).toEqual([429, 'rate_limited']);
    expect(idempotency.calls.release).toBe(1);
    expect(idempotency.entries.size).toBe(0);

    clock.set(Date.UTC(2026, 10, 21, 10, 16, 0));
    const later = await sendMessage(withKey('order-2'), deps, new ResponseHeaders());
    expect(later.statusCode).toBe(202);
    expect(later.headers).not.toHaveProperty('Idempotent-Replayed');
    expect(messages.calls.create).toBe(2);
  });
});
