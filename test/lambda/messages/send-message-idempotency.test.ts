import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sendMessage } from '../../../lambda/messages/send-message.js';
import { ResponseHeaders } from '../../../lambda/shared/http.js';
import { logger } from '../../../lambda/shared/powertools.js';
import { idOf, rejection, setup, T0 } from './send-message-fixtures.js';

// sendMessage with an Idempotency-Key: replays, conflicts, claims in progress and taken over.

beforeEach(() => {
  vi.spyOn(logger, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
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
