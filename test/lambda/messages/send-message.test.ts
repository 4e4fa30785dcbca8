import { decodeTime } from 'ulid';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnonymousReason } from '../../../lambda/keys/caller.js';
import { MESSAGE_ID_PATTERN } from '../../../lambda/messages/message.js';
import { sendMessage } from '../../../lambda/messages/send-message.js';
import { ResponseHeaders } from '../../../lambda/shared/http.js';
import { logger } from '../../../lambda/shared/powertools.js';
import { config, idOf, IP, MINUTE_END_SEC, rejection, setup, T0, T0_ISO } from './send-message-fixtures.js';

// sendMessage: accepted, failing before the 202, refused. With an Idempotency-Key: send-message-idempotency.test.ts.

let logError: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  logError = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
});

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

  it('queue down and the refund failing too: 503, and the headers still count the request', async () => {
    const { deps, request, queue, counts } = await setup();
    queue.failWith = new Error('SQS is down');
    vi.spyOn(deps.limiter, 'refund').mockRejectedValue(new Error('DynamoDB is down'));
    const headers = new ResponseHeaders();
    const problem = await rejection(sendMessage(request(), deps, headers));
    expect(problem.status).toBe(503);
    expect(await counts()).toEqual({ minute: 1, day: 1 });
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
