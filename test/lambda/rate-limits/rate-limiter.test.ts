import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { LimiterItem, LimiterStore } from '../../../lambda/rate-limits/limiter-store.js';
import { MemoryLimiterStore } from '../../../lambda/rate-limits/memory-limiter-store.js';
import {
  anonymousSubjectId,
  keySubjectId,
  LimiterContentionError,
  type LimiterDecision,
  type LimiterSubject,
  RateLimiter,
  secondsUntil,
} from '../../../lambda/rate-limits/rate-limiter.js';
import { ManualClock } from '../../../lambda/shared/clock.js';
import type { BanPolicy, RateLimits } from '../../../lib/config/index.js';

/** 2026-11-21 10:15:00.000 UTC: the start of a minute. */
const T0 = Date.UTC(2026, 10, 21, 10, 15, 0);
const MINUTE_OF_T0 = T0 / 60_000;
const DAY_OF_T0 = Math.floor(T0 / 86_400_000);
/** Midnight UTC after T0: the end of T0's day window. */
const DAY_END = Date.UTC(2026, 10, 22);

const BAN: BanPolicy = { threshold: 3, durationSeconds: 900 };

function setup(startMs = T0) {
  const store = new MemoryLimiterStore();
  const clock = new ManualClock(startMs);
  const limiter = new RateLimiter(store, clock);
  /**
   * A key subject whose limiter item exists, as the control plane creates it when issuing the key:
   * active, with the key's limits stored in the item (the subject carries the same ones).
   */
  async function key(limits: RateLimits, ban: BanPolicy | undefined = BAN, keyId = 'key_1'): Promise<LimiterSubject> {
    await store.activateKey(keySubjectId(keyId), limits);
    return { id: keySubjectId(keyId), limits, ban, kind: 'key' };
  }
  const anonymous = (limits: RateLimits, ip = '203.0.113.7'): LimiterSubject => ({
    id: anonymousSubjectId(ip),
    limits,
    kind: 'anonymous',
  });
  return { store, clock, limiter, key, anonymous };
}

async function consumeTimes(limiter: RateLimiter, subject: LimiterSubject, n: number): Promise<LimiterDecision[]> {
  const out: LimiterDecision[] = [];
  for (let i = 0; i < n; i++) out.push(await limiter.consume(subject));
  return out;
}

const outcomes = (decisions: readonly LimiterDecision[]) => decisions.map((d) => d.outcome);

describe('subject ids', () => {
  it('prefixes keys and client IPs so they never collide', () => {
    expect(keySubjectId('key_1')).toBe('key#key_1');
    expect(anonymousSubjectId('203.0.113.7')).toBe('ip#203.0.113.7');
  });
});

describe('RateLimiter.consume: per-minute limit', () => {
  it('accepts exactly perMinute requests in a minute and describes the first one exactly', async () => {
    const { limiter, clock, key } = setup();
    const subject = await key({ perMinute: 5, perDay: 100 });
    clock.set(T0 + 10_000);

    const first = await limiter.consume(subject);
    expect(first).toEqual({
      outcome: 'allowed',
      consumption: { minuteWindow: MINUTE_OF_T0, dayWindow: DAY_OF_T0 },
      state: {
        nowMs: T0 + 10_000,
        minute: { name: 'minute', limit: 5, used: 1, windowSeconds: 60, resetMs: T0 + 60_000 },
        day: { name: 'day', limit: 100, used: 1, windowSeconds: 86_400, resetMs: DAY_END },
      },
    });
    const rest = await consumeTimes(limiter, subject, 4);
    expect(rest.map((d) => d.state.minute.used)).toEqual([2, 3, 4, 5]);
    expect(outcomes(rest)).toEqual(['allowed', 'allowed', 'allowed', 'allowed']);
  });

  it('refuses request perMinute + 1 with the minute named and Retry-After to the minute end', async () => {
    const { limiter, clock, key, store } = setup();
    const subject = await key({ perMinute: 5, perDay: 100 });
    clock.set(T0 + 10_000);
    await consumeTimes(limiter, subject, 5);

    expect(await limiter.consume(subject)).toEqual({
      outcome: 'rate_limited',
      window: 'minute',
      retryAfterSeconds: 50,
      state: {
        nowMs: T0 + 10_000,
        minute: { name: 'minute', limit: 5, used: 5, windowSeconds: 60, resetMs: T0 + 60_000 },
        day: { name: 'day', limit: 100, used: 5, windowSeconds: 86_400, resetMs: DAY_END },
      },
    });
    // A refused request consumes nothing.
    expect(await store.get(subject.id)).toMatchObject({ minuteCount: 5, dayCount: 5 });
  });

  it('rolls the minute over at exactly 60.000 s, not at 59.999 s', async () => {
    const { limiter, clock, key, store } = setup();
    const subject = await key({ perMinute: 2, perDay: 100 });
    await consumeTimes(limiter, subject, 2);

    clock.set(T0 + 59_999);
    const late = await limiter.consume(subject);
    expect(late.outcome).toBe('rate_limited');
    expect(late.outcome === 'rate_limited' && late.retryAfterSeconds).toBe(1);

    clock.set(T0 + 60_000);
    const next = await limiter.consume(subject);
    expect(next.outcome).toBe('allowed');
    expect(next.state.minute).toEqual({ name: 'minute', limit: 2, used: 1, windowSeconds: 60, resetMs: T0 + 120_000 });
    expect(next.state.day.used).toBe(3);
    expect(await store.get(subject.id)).toMatchObject({
      minuteWindow: MINUTE_OF_T0 + 1,
      minuteCount: 1,
      dayWindow: DAY_OF_T0,
      dayCount: 3,
    });
  });
});

describe('RateLimiter.consume: per-day limit', () => {
  it('refuses request perDay + 1 across minutes with the day named and Retry-After to midnight UTC', async () => {
    const { limiter, clock, key } = setup();
    const subject = await key({ perMinute: 5, perDay: 12 });
    expect(outcomes(await consumeTimes(limiter, subject, 5))).toEqual(Array(5).fill('allowed'));
    clock.set(T0 + 60_000);
    expect(outcomes(await consumeTimes(limiter, subject, 5))).toEqual(Array(5).fill('allowed'));
    clock.set(T0 + 120_000);
    const third = await consumeTimes(limiter, subject, 3);
    expect(outcomes(third)).toEqual(['allowed', 'allowed', 'rate_limited']);
    const refused = third[2];
    // 10:17:00 → midnight is 13 h 43 min.
    expect(refused).toMatchObject({ outcome: 'rate_limited', window: 'day', retryAfterSeconds: 49_380 });
    expect(refused?.state.day).toEqual({ name: 'day', limit: 12, used: 12, windowSeconds: 86_400, resetMs: DAY_END });
    expect(refused?.state.minute.used).toBe(2);
  });

  it('rolls the day over at exactly midnight UTC', async () => {
    const { limiter, clock, key } = setup();
    const subject = await key({ perMinute: 5, perDay: 5 });
    await consumeTimes(limiter, subject, 5);
    clock.set(DAY_END - 1);
    expect(await limiter.consume(subject)).toMatchObject({
      outcome: 'rate_limited',
      window: 'day',
      retryAfterSeconds: 1,
    });
    clock.set(DAY_END);
    const next = await limiter.consume(subject);
    expect(next.outcome).toBe('allowed');
    expect(next.state.day).toEqual({
      name: 'day',
      limit: 5,
      used: 1,
      windowSeconds: 86_400,
      resetMs: DAY_END + 86_400_000,
    });
  });
});

describe('RateLimiter.consume: which window a refusal names', () => {
  it('names the minute when only the minute is spent', async () => {
    const { limiter, key } = setup();
    const subject = await key({ perMinute: 3, perDay: 100 });
    await consumeTimes(limiter, subject, 3);
    expect(await limiter.consume(subject)).toMatchObject({ outcome: 'rate_limited', window: 'minute' });
  });

  it('names the day when only the day is spent, even with most of the minute left', async () => {
    const { limiter, clock, key } = setup();
    const subject = await key({ perMinute: 10, perDay: 12 });
    await consumeTimes(limiter, subject, 10);
    clock.set(T0 + 60_000);
    await consumeTimes(limiter, subject, 2);
    expect(await limiter.consume(subject)).toMatchObject({ outcome: 'rate_limited', window: 'day' });
  });

  it('when both windows are spent, names the day and waits until it resets (retrying at the minute end would fail)', async () => {
    const { limiter, clock, key } = setup();
    const subject = await key({ perMinute: 3, perDay: 3 });
    clock.set(T0 + 10_000);
    await consumeTimes(limiter, subject, 3);
    const refused = await limiter.consume(subject);
    // Design §1: Retry-After is the time until the blocking window resets. The request stays
    // blocked until midnight whatever the minute does, so the day is the blocking window.
    expect(refused).toMatchObject({
      outcome: 'rate_limited',
      window: 'day',
      retryAfterSeconds: (DAY_END - (T0 + 10_000)) / 1000,
    });
    // Proof that a retry at the minute's end is refused again:
    clock.set(T0 + 60_000);
    expect(await limiter.consume(subject)).toMatchObject({ outcome: 'rate_limited', window: 'day' });
  });
});

describe('RateLimiter.consume: strikes and bans', () => {
  it('bans only after MORE than threshold refusals within a minute, for the ban duration', async () => {
    const { limiter, clock, key, store } = setup();
    const subject = await key({ perMinute: 2, perDay: 100 });
    clock.set(T0 + 5_000);
    await consumeTimes(limiter, subject, 2);

    const refusals = await consumeTimes(limiter, subject, 3);
    expect(outcomes(refusals)).toEqual(['rate_limited', 'rate_limited', 'rate_limited']);
    expect((await store.get(subject.id))?.strikeCount).toBe(3);

    const banned = await limiter.consume(subject);
    expect(banned).toEqual({
      outcome: 'banned',
      retryAfterSeconds: 900,
      state: {
        nowMs: T0 + 5_000,
        minute: { name: 'minute', limit: 2, used: 2, windowSeconds: 60, resetMs: T0 + 60_000 },
        day: { name: 'day', limit: 100, used: 2, windowSeconds: 86_400, resetMs: DAY_END },
        bannedUntilMs: T0 + 5_000 + 900_000,
      },
    });
    expect(await store.get(subject.id)).toMatchObject({ banUntil: T0 + 905_000, strikeCount: 0 });
  });

  it('keeps answering banned with a Retry-After that counts down, without counting requests', async () => {
    const { limiter, clock, key, store } = setup();
    const subject = await key({ perMinute: 2, perDay: 100 });
    await consumeTimes(limiter, subject, 6);
    clock.advance(61_500);
    // A fresh minute does not lift the ban.
    expect(await limiter.consume(subject)).toMatchObject({ outcome: 'banned', retryAfterSeconds: 839 });
    expect(await store.get(subject.id)).toMatchObject({ minuteCount: 2, dayCount: 2 });
  });

  it('does not count strikes older than a rolling minute', async () => {
    const { limiter, clock, key, store } = setup();
    // The day binds, so requests keep being refused across minutes.
    const subject = await key({ perMinute: 10, perDay: 2 });
    const t1 = T0 + 1_000;
    clock.set(t1);
    await consumeTimes(limiter, subject, 2);
    expect(outcomes(await consumeTimes(limiter, subject, 3))).toEqual(Array(3).fill('rate_limited'));

    clock.set(t1 + 60_000);
    expect(outcomes(await consumeTimes(limiter, subject, 3))).toEqual(Array(3).fill('rate_limited'));
    expect(await store.get(subject.id)).toMatchObject({ strikeWindowStart: t1 + 60_000, strikeCount: 3 });
    expect((await limiter.consume(subject)).outcome).toBe('banned');
  });

  it('counts a strike 59.999 s after the first one in the same rolling minute', async () => {
    const { limiter, clock, key } = setup();
    const subject = await key({ perMinute: 10, perDay: 2 });
    const t1 = T0 + 1_000;
    clock.set(t1);
    await consumeTimes(limiter, subject, 2);
    await consumeTimes(limiter, subject, 3);
    clock.set(t1 + 59_999);
    expect(await limiter.consume(subject)).toMatchObject({ outcome: 'banned', retryAfterSeconds: 900 });
  });

  it('lets the key through when the ban ends, and a new ban needs more than threshold fresh refusals', async () => {
    const { limiter, clock, key } = setup();
    const subject = await key({ perMinute: 2, perDay: 100 });
    const tBan = T0 + 5_000;
    clock.set(tBan);
    await consumeTimes(limiter, subject, 5);
    expect((await limiter.consume(subject)).outcome).toBe('banned');

    clock.set(tBan + 900_000 - 1);
    expect(await limiter.consume(subject)).toMatchObject({ outcome: 'banned', retryAfterSeconds: 1 });

    clock.set(tBan + 900_000);
    const after = await limiter.consume(subject);
    expect(after.outcome).toBe('allowed');
    expect(after.state.bannedUntilMs).toBeUndefined();

    await limiter.consume(subject);
    expect(outcomes(await consumeTimes(limiter, subject, 4))).toEqual([
      'rate_limited',
      'rate_limited',
      'rate_limited',
      'banned',
    ]);
  });

  it('never bans an anonymous subject (no ban policy), it only rate limits it', async () => {
    const { limiter, anonymous } = setup();
    const subject = anonymous({ perMinute: 1, perDay: 100 });
    await limiter.consume(subject);
    const refusals = await consumeTimes(limiter, subject, 50);
    expect(new Set(outcomes(refusals))).toEqual(new Set(['rate_limited']));
  });
});

describe('RateLimiter.consume: subjects without an active item', () => {
  it('refuses a revoked key at once, with its counts unchanged', async () => {
    const { limiter, key, store } = setup();
    const subject = await key({ perMinute: 5, perDay: 100 });
    await consumeTimes(limiter, subject, 2);
    await store.revokeKey(subject.id);
    const decision = await limiter.consume(subject);
    expect(decision.outcome).toBe('revoked');
    expect(decision.state.minute.used).toBe(2);
    expect(await store.get(subject.id)).toMatchObject({ minuteCount: 2, dayCount: 2, status: 'revoked' });
  });

  it('treats a key without a limiter item as revoked and creates nothing', async () => {
    const { limiter, store } = setup();
    const subject: LimiterSubject = {
      id: keySubjectId('never_issued'),
      limits: { perMinute: 5, perDay: 100 },
      ban: BAN,
      kind: 'key',
    };
    expect(await limiter.consume(subject)).toEqual({
      outcome: 'revoked',
      state: {
        nowMs: T0,
        minute: { name: 'minute', limit: 5, used: 0, windowSeconds: 60, resetMs: T0 + 60_000 },
        day: { name: 'day', limit: 100, used: 0, windowSeconds: 86_400, resetMs: DAY_END },
      },
    });
    expect(await store.get(subject.id)).toBeUndefined();
  });

  it('creates an anonymous subject on first use with one write, expiring a day after its day window', async () => {
    const { limiter, anonymous, store } = setup();
    const tryConsume = vi.spyOn(store, 'tryConsume');
    const get = vi.spyOn(store, 'get');
    const subject = anonymous({ perMinute: 60, perDay: 10_000 });
    const decision = await limiter.consume(subject);
    expect(decision.outcome).toBe('allowed');
    expect(decision.state.minute.used).toBe(1);
    expect(await store.get(subject.id)).toEqual({
      id: 'ip#203.0.113.7',
      minuteWindow: MINUTE_OF_T0,
      minuteCount: 1,
      dayWindow: DAY_OF_T0,
      dayCount: 1,
      lastUsedAt: T0,
    });
    expect(tryConsume.mock.calls).toEqual([
      [
        'ip#203.0.113.7',
        {
          minuteWindow: MINUTE_OF_T0,
          dayWindow: DAY_OF_T0,
          limits: { perMinute: 60, perDay: 10_000 },
          nowMs: T0,
          expiresAtSeconds: Date.UTC(2026, 10, 23) / 1000,
        },
      ],
    ]);
    expect(get).toHaveBeenCalledTimes(1); // the assertion's own read above
  });

  it('writes no expiry on key items', async () => {
    const { limiter, key, store } = setup();
    const subject = await key({ perMinute: 5, perDay: 100 });
    const tryConsume = vi.spyOn(store, 'tryConsume');
    await limiter.consume(subject);
    expect(tryConsume).toHaveBeenCalledTimes(1);
    expect(tryConsume.mock.calls[0]?.[1]).not.toHaveProperty('expiresAtSeconds');
  });

  it('counts the first request of a new minute and of a new day with the same single write', async () => {
    const { limiter, clock, key, store } = setup(DAY_END - 30_000);
    const subject = await key({ perMinute: 2, perDay: 3 });
    await consumeTimes(limiter, subject, 2);
    const tryConsume = vi.spyOn(store, 'tryConsume');
    const get = vi.spyOn(store, 'get');
    clock.set(DAY_END + 1_000);
    const decisions = await consumeTimes(limiter, subject, 2);
    expect(outcomes(decisions)).toEqual(['allowed', 'allowed']);
    expect(decisions[0]?.state.minute.used).toBe(1);
    expect(decisions[0]?.state.day.used).toBe(1);
    expect(tryConsume).toHaveBeenCalledTimes(2);
    expect(get).not.toHaveBeenCalled();
  });

  it('hands over the store\'s tidying as housekeeping, already settled when it fails', async () => {
    const store = new MemoryLimiterStore();
    await store.activateKey(keySubjectId('key_1'), { perMinute: 5, perDay: 100 });
    const counted = store.tryConsume.bind(store);
    vi.spyOn(store, 'tryConsume').mockImplementation(async (id, condition) => {
      const consumed = await counted(id, condition);
      return consumed && { ...consumed, tidy: () => Promise.reject(new Error('throttled')) };
    });
    const limiter = new RateLimiter(store, new ManualClock(T0));
    const decision = await limiter.consume({ id: keySubjectId('key_1'), limits: { perMinute: 5, perDay: 100 }, kind: 'key' });
    expect(decision.outcome).toBe('allowed');
    await expect(decision.outcome === 'allowed' ? decision.housekeeping : undefined).resolves.toBeUndefined();
  });
});

describe('RateLimiter: a key\'s limits are the ones stored in its limiter item', () => {
  it('consumes keys against the stored limits (\'stored\') and anonymous subjects against their own', async () => {
    const { limiter, key, anonymous, store } = setup();
    const subject = await key({ perMinute: 5, perDay: 100 });
    const ip = anonymous({ perMinute: 7, perDay: 70 });
    const tryConsume = vi.spyOn(store, 'tryConsume');
    await limiter.consume(subject);
    await limiter.consume(ip);
    expect(tryConsume.mock.calls).toEqual([
      [subject.id, { minuteWindow: MINUTE_OF_T0, dayWindow: DAY_OF_T0, limits: 'stored', nowMs: T0 }],
      [
        ip.id,
        {
          minuteWindow: MINUTE_OF_T0,
          dayWindow: DAY_OF_T0,
          limits: { perMinute: 7, perDay: 70 },
          nowMs: T0,
          expiresAtSeconds: Date.UTC(2026, 10, 23) / 1000,
        },
      ],
    ]);
  });

  it('the stored limits win over the subject\'s, on the first (rolled-over) request and on the next ones', async () => {
    const { limiter, clock, store } = setup();
    await store.activateKey(keySubjectId('key_1'), { perMinute: 2, perDay: 50 });
    // The subject carries other limits (e.g. stale ones from the authorizer's cache).
    const subject: LimiterSubject = { id: keySubjectId('key_1'), limits: { perMinute: 60, perDay: 1_000 }, ban: BAN, kind: 'key' };
    clock.set(T0 + 10_000);

    const state = (used: number) => ({
      nowMs: T0 + 10_000,
      minute: { name: 'minute', limit: 2, used, windowSeconds: 60, resetMs: T0 + 60_000 },
      day: { name: 'day', limit: 50, used, windowSeconds: 86_400, resetMs: DAY_END },
    });
    const consumption = { minuteWindow: MINUTE_OF_T0, dayWindow: DAY_OF_T0 };
    expect(await limiter.consume(subject)).toEqual({ outcome: 'allowed', consumption, state: state(1) });
    expect(await limiter.consume(subject)).toEqual({ outcome: 'allowed', consumption, state: state(2) });
    expect(await limiter.consume(subject)).toEqual({
      outcome: 'rate_limited',
      window: 'minute',
      retryAfterSeconds: 50,
      state: state(2),
    });
    expect(await limiter.peek(subject, 'read')).toEqual({ outcome: 'allowed', state: state(2) });
    expect(await store.get(subject.id)).toMatchObject({ minuteCount: 2, dayCount: 2, minuteLimit: 2, dayLimit: 50 });
  });

  it('stored limits above the subject\'s let the key through past the subject\'s limits', async () => {
    const { limiter, store } = setup();
    await store.activateKey(keySubjectId('key_1'), { perMinute: 4, perDay: 100 });
    const subject: LimiterSubject = { id: keySubjectId('key_1'), limits: { perMinute: 1, perDay: 1 }, ban: BAN, kind: 'key' };
    const decisions = await consumeTimes(limiter, subject, 5);
    expect(outcomes(decisions)).toEqual(['allowed', 'allowed', 'allowed', 'allowed', 'rate_limited']);
    expect(decisions[3]?.state.minute).toMatchObject({ limit: 4, used: 4 });
    expect(decisions[3]?.state.day).toMatchObject({ limit: 100, used: 4 });
  });

  it('setLimits applies to the very next consume, lowering and raising the limits', async () => {
    const { limiter, clock, key, store } = setup();
    const subject = await key({ perMinute: 5, perDay: 100 });
    clock.set(T0 + 10_000);
    await consumeTimes(limiter, subject, 3);

    await store.setLimits(subject.id, { perMinute: 3, perDay: 100 });
    expect(await limiter.consume(subject)).toMatchObject({
      outcome: 'rate_limited',
      window: 'minute',
      retryAfterSeconds: 50,
      state: { minute: { limit: 3, used: 3 }, day: { limit: 100, used: 3 } },
    });

    await store.setLimits(subject.id, { perMinute: 10, perDay: 4 });
    const raised = await limiter.consume(subject);
    expect(raised).toMatchObject({ outcome: 'allowed', state: { minute: { limit: 10, used: 4 }, day: { limit: 4, used: 4 } } });
    expect(await limiter.consume(subject)).toMatchObject({ outcome: 'rate_limited', window: 'day' });
    expect(await store.get(subject.id)).toMatchObject({ minuteCount: 4, dayCount: 4, minuteLimit: 10, dayLimit: 4 });
  });

  it('falls back to the subject\'s limits when the key\'s item has none (written before limits were stored), and stores them', async () => {
    const { limiter, store } = setup();
    const id = keySubjectId('key_legacy');
    store.seed({ id, status: 'active', minuteWindow: 0, minuteCount: 0, dayWindow: 0, dayCount: 0, lastUsedAt: 0 });
    const subject: LimiterSubject = { id, limits: { perMinute: 3, perDay: 100 }, ban: BAN, kind: 'key' };
    const decisions = await consumeTimes(limiter, subject, 4);
    expect(outcomes(decisions)).toEqual(['allowed', 'allowed', 'allowed', 'rate_limited']);
    expect(decisions.map((d) => d.state.minute.limit)).toEqual([3, 3, 3, 3]);
    expect(decisions.map((d) => d.state.day.limit)).toEqual([100, 100, 100, 100]);
    expect(await store.get(id)).toEqual({
      id,
      status: 'active',
      minuteWindow: MINUTE_OF_T0,
      minuteCount: 3,
      dayWindow: DAY_OF_T0,
      dayCount: 3,
      lastUsedAt: T0,
      // The item's first refusal below the subject's limits wrote them into it.
      minuteLimit: 3,
      dayLimit: 100,
      // The fourth request's refusal is a strike.
      strikeWindowStart: T0,
      strikeCount: 1,
    });
  });

  it('records lastUsedAt on every counted request (both write paths), not on refusals', async () => {
    const { limiter, clock, key, store } = setup();
    const subject = await key({ perMinute: 2, perDay: 100 });
    expect((await store.get(subject.id))?.lastUsedAt).toBeUndefined();
    clock.set(T0 + 1_000);
    await limiter.consume(subject);
    expect((await store.get(subject.id))?.lastUsedAt).toBe(T0 + 1_000);
    clock.set(T0 + 2_000);
    await limiter.consume(subject);
    expect((await store.get(subject.id))?.lastUsedAt).toBe(T0 + 2_000);
    clock.set(T0 + 3_000);
    expect((await limiter.consume(subject)).outcome).toBe('rate_limited');
    expect((await limiter.peek(subject, 'send')).outcome).toBe('rate_limited');
    expect((await store.get(subject.id))?.lastUsedAt).toBe(T0 + 2_000);
  });

  it('a revoked key stays refused whatever its limits, and activateKey keeps its counts', async () => {
    const { limiter, key, store } = setup();
    const subject = await key({ perMinute: 5, perDay: 100 });
    await consumeTimes(limiter, subject, 2);
    await store.revokeKey(subject.id);
    await store.setLimits(subject.id, { perMinute: 50, perDay: 500 });
    expect((await limiter.consume(subject)).outcome).toBe('revoked');
    await store.activateKey(subject.id, { perMinute: 3, perDay: 500 });
    expect(await limiter.consume(subject)).toMatchObject({
      outcome: 'allowed',
      state: { minute: { limit: 3, used: 3 }, day: { limit: 500, used: 3 } },
    });
  });
});

describe('RateLimiter.peek', () => {
  it('\'read\' allows at the limit and counts nothing; \'send\' refuses at the limit', async () => {
    const { limiter, key, store } = setup();
    const subject = await key({ perMinute: 2, perDay: 100 });
    await consumeTimes(limiter, subject, 2);

    const read = await limiter.peek(subject, 'read');
    expect(read).toEqual({
      outcome: 'allowed',
      state: {
        nowMs: T0,
        minute: { name: 'minute', limit: 2, used: 2, windowSeconds: 60, resetMs: T0 + 60_000 },
        day: { name: 'day', limit: 100, used: 2, windowSeconds: 86_400, resetMs: DAY_END },
      },
    });
    expect(await limiter.peek(subject, 'send')).toMatchObject({
      outcome: 'rate_limited',
      window: 'minute',
      retryAfterSeconds: 60,
    });
    expect(await store.get(subject.id)).toMatchObject({ minuteCount: 2, dayCount: 2 });
  });

  it('\'send\' below the limit allows without counting', async () => {
    const { limiter, key, store } = setup();
    const subject = await key({ perMinute: 2, perDay: 100 });
    await limiter.consume(subject);
    expect((await limiter.peek(subject, 'send')).outcome).toBe('allowed');
    expect(await store.get(subject.id)).toMatchObject({ minuteCount: 1, dayCount: 1 });
  });

  it('\'read\' refusals never strike; \'send\' refusals are 429s and do', async () => {
    const { limiter, key, store } = setup();
    const subject = await key({ perMinute: 1, perDay: 100 });
    await limiter.consume(subject);
    for (let i = 0; i < 10; i++) await limiter.peek(subject, 'read');
    expect((await store.get(subject.id))?.strikeCount).toBeUndefined();
    const sends = [];
    for (let i = 0; i < 4; i++) sends.push((await limiter.peek(subject, 'send')).outcome);
    expect(sends).toEqual(['rate_limited', 'rate_limited', 'rate_limited', 'banned']);
  });

  it('refuses a banned key in both modes', async () => {
    const { limiter, key } = setup();
    const subject = await key({ perMinute: 1, perDay: 100 });
    await consumeTimes(limiter, subject, 5);
    expect(await limiter.peek(subject, 'read')).toMatchObject({ outcome: 'banned', retryAfterSeconds: 900 });
    expect(await limiter.peek(subject, 'send')).toMatchObject({ outcome: 'banned', retryAfterSeconds: 900 });
  });

  it('reports revoked keys and keys without an item as revoked in both modes', async () => {
    const { limiter, key, store } = setup();
    const revoked = await key({ perMinute: 5, perDay: 100 }, BAN, 'key_revoked');
    await store.revokeKey(revoked.id);
    const missing: LimiterSubject = { id: keySubjectId('missing'), limits: { perMinute: 5, perDay: 100 }, kind: 'key' };
    for (const mode of ['read', 'send'] as const) {
      expect((await limiter.peek(revoked, mode)).outcome).toBe('revoked');
      expect((await limiter.peek(missing, mode)).outcome).toBe('revoked');
    }
  });

  it('shows counts of earlier windows as zero, and a first-time anonymous caller as unused', async () => {
    const { limiter, clock, key, anonymous } = setup();
    const subject = await key({ perMinute: 5, perDay: 100 });
    await consumeTimes(limiter, subject, 3);
    clock.set(T0 + 60_000);
    const state = (await limiter.peek(subject, 'read')).state;
    expect([state.minute.used, state.day.used]).toEqual([0, 3]);

    const fresh = await limiter.peek(anonymous({ perMinute: 60, perDay: 100 }), 'send');
    expect(fresh.outcome).toBe('allowed');
    expect([fresh.state.minute.used, fresh.state.day.used]).toEqual([0, 0]);
  });
});

describe('RateLimiter.refund', () => {
  it('gives the request back in both windows', async () => {
    const { limiter, key, store } = setup();
    const subject = await key({ perMinute: 5, perDay: 100 });
    const decisions = await consumeTimes(limiter, subject, 3);
    const last = decisions[2];
    if (last?.outcome !== 'allowed' || !last.consumption) throw new Error('expected an allowed decision');
    await limiter.refund(subject, last.consumption);
    expect(await store.get(subject.id)).toMatchObject({ minuteCount: 2, dayCount: 2 });
  });

  it('gives it back in the day only once the minute has rolled over', async () => {
    const { limiter, clock, key, store } = setup();
    const subject = await key({ perMinute: 5, perDay: 100 });
    const first = await limiter.consume(subject);
    clock.set(T0 + 60_000);
    await limiter.consume(subject);
    if (first.outcome !== 'allowed' || !first.consumption) throw new Error('expected an allowed decision');
    await limiter.refund(subject, first.consumption);
    expect(await store.get(subject.id)).toMatchObject({
      minuteWindow: MINUTE_OF_T0 + 1,
      minuteCount: 1,
      dayWindow: DAY_OF_T0,
      dayCount: 1,
    });
  });

  it('gives nothing back once the day has rolled over too', async () => {
    const { limiter, clock, key, store } = setup(DAY_END - 1_000);
    const subject = await key({ perMinute: 5, perDay: 100 });
    const first = await limiter.consume(subject);
    clock.set(DAY_END);
    await limiter.consume(subject);
    if (first.outcome !== 'allowed' || !first.consumption) throw new Error('expected an allowed decision');
    await limiter.refund(subject, first.consumption);
    expect(await store.get(subject.id)).toMatchObject({ minuteCount: 1, dayCount: 1 });
  });
});

describe('RateLimiter.consume under concurrency', () => {
  it('accepts exactly perMinute of N > perMinute concurrent requests on a key', async () => {
    const { limiter, key, store } = setup();
    const subject = await key({ perMinute: 7, perDay: 100 }, { threshold: 1_000, durationSeconds: 900 });
    const decisions = await Promise.all(Array.from({ length: 25 }, () => limiter.consume(subject)));
    const allowed = decisions.filter((d) => d.outcome === 'allowed');
    expect(allowed).toHaveLength(7);
    expect(decisions.filter((d) => d.outcome === 'rate_limited')).toHaveLength(18);
    expect(allowed.map((d) => d.state.minute.used).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(await store.get(subject.id)).toMatchObject({ minuteCount: 7, dayCount: 7 });
  });

  it('accepts exactly perMinute of concurrent first requests of a new anonymous subject', async () => {
    const { limiter, anonymous, store } = setup();
    const subject = anonymous({ perMinute: 4, perDay: 100 });
    const decisions = await Promise.all(Array.from({ length: 12 }, () => limiter.consume(subject)));
    expect(decisions.filter((d) => d.outcome === 'allowed')).toHaveLength(4);
    expect(await store.get(subject.id)).toMatchObject({ minuteCount: 4, dayCount: 4 });
  });

  it('gives up with a LimiterContentionError when the item keeps changing', async () => {
    const item: LimiterItem = {
      id: 'key#busy',
      status: 'active',
      minuteWindow: 0,
      minuteCount: 0,
      dayWindow: 0,
      dayCount: 0,
      minuteLimit: 5,
      dayLimit: 100,
    };
    const store = {
      tryConsume: vi.fn(async () => undefined),
      get: vi.fn(async () => item),
    } as unknown as LimiterStore;
    const limiter = new RateLimiter(store, new ManualClock(T0));
    const subject: LimiterSubject = { id: 'key#busy', limits: { perMinute: 5, perDay: 100 }, kind: 'key' };
    const error = await limiter.consume(subject).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LimiterContentionError);
    expect((error as Error).message).toContain('key#busy');
    expect(vi.mocked(store.tryConsume)).toHaveBeenCalledTimes(8);
  });
});

describe('secondsUntil (Retry-After)', () => {
  it.each([
    [T0 + 60_000, T0, 60],
    [T0 + 60_000, T0 + 59_001, 1],
    [T0 + 60_000, T0 + 59_999, 1],
    [T0 + 60_000, T0 + 58_999, 2],
    [T0 + 1_000, T0 + 1_000, 1],
    [T0, T0 + 5_000, 1],
  ])('secondsUntil(%i, %i) = %i', (target, now, expected) => {
    expect(secondsUntil(target, now)).toBe(expected);
  });
});

describe('property: windows never hold more than their limits', () => {
  it('for any sequence of clock advances and concurrent bursts, accepts exactly what the budget allows', async () => {
    const limits = { perMinute: 3, perDay: 12 };
    // 23:50 UTC, so that runs cross midnight.
    const start = Date.UTC(2026, 10, 21, 23, 50, 0);
    const op = fc.record({
      advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 120_000 })),
      burst: fc.integer({ min: 1, max: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 120 }), async (ops) => {
        const { limiter, clock, anonymous } = setup(start);
        const subject = anonymous(limits);
        const accepted: number[] = [];
        for (const { advanceMs, burst } of ops) {
          clock.advance(advanceMs);
          const now = clock.now();
          const minute = Math.floor(now / 60_000);
          const day = Math.floor(now / 86_400_000);
          const inMinute = accepted.filter((t) => Math.floor(t / 60_000) === minute).length;
          const inDay = accepted.filter((t) => Math.floor(t / 86_400_000) === day).length;
          const decisions = await Promise.all(Array.from({ length: burst }, () => limiter.consume(subject)));
          const allowed = decisions.filter((d) => d.outcome === 'allowed').length;
          const expectedAllowed = Math.min(burst, limits.perMinute - inMinute, limits.perDay - inDay);
          expect(allowed).toBe(expectedAllowed);
          expect(decisions.length - allowed).toBe(decisions.filter((d) => d.outcome === 'rate_limited').length);
          for (let i = 0; i < allowed; i++) accepted.push(now);
        }
        const perMinute = new Map<number, number>();
        const perDay = new Map<number, number>();
        for (const t of accepted) {
          const m = Math.floor(t / 60_000);
          const d = Math.floor(t / 86_400_000);
          perMinute.set(m, (perMinute.get(m) ?? 0) + 1);
          perDay.set(d, (perDay.get(d) ?? 0) + 1);
        }
        expect(Math.max(0, ...perMinute.values())).toBeLessThanOrEqual(limits.perMinute);
        expect(Math.max(0, ...perDay.values())).toBeLessThanOrEqual(limits.perDay);
      }),
      { seed: 42, numRuns: 100 },
    );
  });
});
