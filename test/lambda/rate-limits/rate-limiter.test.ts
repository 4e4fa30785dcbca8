import { describe, expect, it } from 'vitest';
import { BAN_MEMORY_MS } from '../../../lambda/rate-limits/container-knowledge.js';
import { rateLimitHeaders } from '../../../lambda/rate-limits/headers.js';
import { LimiterContentionError, RateLimiter } from '../../../lambda/rate-limits/rate-limiter.js';
import { MemoryLimiterStore } from '../../support/memory-limiter-store.js';
import {
  BAN,
  consumeTimes,
  DAY_END,
  DAY_OF_T0,
  MINUTE_OF_T0,
  outcomes,
  remaining,
  setup,
  T0,
} from './limiter-fixtures.js';

describe('RateLimiter.consume: one budget per account', () => {
  it('counts every key of the account on the one budget, and describes the first request exactly', async () => {
    const { limiter, clock, account } = setup();
    const key = await account({ perMinute: 5, perDay: 100 });
    clock.set(T0 + 10_000);
    const first = await limiter.consume(key('key_a'));
    expect(first).toEqual({
      outcome: 'allowed',
      consumption: { item: 'acct#acct_1', minuteWindow: MINUTE_OF_T0, dayWindow: DAY_OF_T0, keyId: 'key_a' },
      state: {
        nowMs: T0 + 10_000,
        minute: { name: 'minute', limit: 5, used: 1, windowSeconds: 60, resetMs: T0 + 60_000 },
        day: { name: 'day', limit: 100, used: 1, windowSeconds: 86_400, resetMs: DAY_END },
      },
    });
    const decisions = [
      await limiter.consume(key('key_b')),
      await limiter.consume(key('key_a')),
      await limiter.consume(key('key_b')),
      await limiter.consume(key('key_c')),
      await limiter.consume(key('key_b')),
    ];
    expect(outcomes(decisions)).toEqual(['allowed', 'allowed', 'allowed', 'allowed', 'rate_limited']);
    expect(decisions.slice(0, 4).map((d) => remaining(d).minute)).toEqual([3, 2, 1, 0]);
  });

  it('gives a new minute its whole budget, and keeps counting the day across keys', async () => {
    const { limiter, clock, account } = setup();
    const key = await account({ perMinute: 2, perDay: 5 });
    await consumeTimes(limiter, key('key_a'), 2);
    clock.advance(60_000);
    const d = await limiter.consume(key('key_b'));
    expect(d.outcome).toBe('allowed');
    expect(remaining(d)).toEqual({ minute: 1, day: 2 });
  });

  it('refuses for the minute with Retry-After to the minute end, and headers that agree with it', async () => {
    const { limiter, clock, account } = setup();
    const key = await account({ perMinute: 2, perDay: 100 });
    await consumeTimes(limiter, key('key_a'), 2);
    clock.set(T0 + 25_300);
    const refused = await limiter.consume(key('key_b'));
    expect(refused).toMatchObject({ outcome: 'rate_limited', window: 'minute', retryAfterSeconds: 35 });
    expect(rateLimitHeaders(refused.state)).toMatchObject({ 'X-RateLimit-Remaining': '0', RateLimit: '"minute";r=0;t=35' });
  });

  it('refuses for the day when the day is spent, and names the day when both windows are spent', async () => {
    const { limiter, clock, account } = setup();
    const key = await account({ perMinute: 3, perDay: 3 });
    await consumeTimes(limiter, key('key_a'), 3);
    clock.set(T0 + 30_000);
    const refused = await limiter.consume(key('key_b'));
    const untilMidnight = (DAY_END - (T0 + 30_000)) / 1000;
    expect(refused).toMatchObject({ outcome: 'rate_limited', window: 'day', retryAfterSeconds: untilMidnight });
    // Both windows are at 0: the headers name the day, the window Retry-After counts to.
    expect(rateLimitHeaders(refused.state)).toMatchObject({
      'X-RateLimit-Limit': '3',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(DAY_END / 1000),
      RateLimit: `"day";r=0;t=${untilMidnight}`,
    });
  });

  it('applies limits stored by a plan change from the next request, whatever the caller\'s limits say', async () => {
    const { limiter, clock, account, admin } = setup();
    const key = await account({ perMinute: 2, perDay: 100 });
    await consumeTimes(limiter, key('key_a'), 2);
    await admin.provision('acct_1', { perMinute: 4, perDay: 100 }, clock.now());
    const d = await limiter.consume(key('key_a'));
    expect(d.outcome).toBe('allowed');
    expect(d.state.minute).toMatchObject({ limit: 4, used: 3 });
  });

  it('provisions an account the account service never provisioned (from before per-account limits) with the caller\'s limits', async () => {
    const { limiter, memory } = setup();
    const subject = { kind: 'key' as const, keyId: 'key_old', accountId: 'acct_old', limits: { perMinute: 2, perDay: 9 }, ban: BAN };
    expect(outcomes(await consumeTimes(limiter, subject, 3))).toEqual(['allowed', 'allowed', 'rate_limited']);
    expect(memory.raw('acct#acct_old')).toMatchObject({ minuteLimit: 2, dayLimit: 9, perMinute: 2, perDay: 9, shards: 1 });
  });

  it('refunds a consumption on the item and key it was counted on', async () => {
    const { limiter, account, admin, clock } = setup();
    const key = await account({ perMinute: 2, perDay: 100 });
    const d = await limiter.consume(key('key_a'));
    if (d.outcome !== 'allowed' || !d.consumption) throw new Error('expected a consumption');
    await limiter.refund(d.consumption);
    expect(await admin.usage('acct_1', clock.now())).toMatchObject({ minute: 0, day: 0 });
    expect(outcomes(await consumeTimes(limiter, key('key_b'), 3))).toEqual(['allowed', 'allowed', 'rate_limited']);
  });

  it('gives up with LimiterContentionError when the item keeps changing under it', async () => {
    const store = new MemoryLimiterStore();
    // A store whose refusals show an item with budget left: as if every read came after a refund.
    const racing = Object.assign(Object.create(store) as MemoryLimiterStore, {
      tryConsume: async () => ({ counted: false as const, item: { id: 'acct#a', minuteLimit: 5, dayLimit: 5, keys: {} } }),
    });
    const limiter = new RateLimiter(racing, { now: () => T0 });
    await expect(limiter.consume({ kind: 'key', keyId: 'k', accountId: 'a', limits: { perMinute: 5, perDay: 5 }, ban: BAN }))
      .rejects.toBeInstanceOf(LimiterContentionError);
  });
});

describe('RateLimiter.consume: bans and revocations are per key', () => {
  it('bans the key that keeps sending after 429s, while its sibling keeps the shared budget', async () => {
    const { limiter, clock, account } = setup();
    const key = await account({ perMinute: 2, perDay: 100 });
    await consumeTimes(limiter, key('key_a'), 2);
    // Threshold 3: the 4th refusal within a rolling minute bans.
    const refusals = await consumeTimes(limiter, key('key_a'), 4);
    expect(outcomes(refusals)).toEqual(['rate_limited', 'rate_limited', 'rate_limited', 'banned']);
    expect(refusals[3]).toMatchObject({ retryAfterSeconds: BAN.durationSeconds });
    // The sibling is refused for the budget (a 429 of its own), not banned.
    expect((await limiter.consume(key('key_b'))).outcome).toBe('rate_limited');
    clock.advance(60_000);
    expect(outcomes([await limiter.consume(key('key_b')), await limiter.consume(key('key_a'))])).toEqual(['allowed', 'banned']);
  });

  it('describes a ban consistently: Retry-After = RateLimit t, a "ban" policy, Remaining 0, Reset at the end', async () => {
    const { limiter, clock, account } = setup();
    const key = await account({ perMinute: 1, perDay: 100 });
    await limiter.consume(key('key_a'));
    clock.set(T0 + 500);
    const last = (await consumeTimes(limiter, key('key_a'), 4))[3];
    if (last?.outcome !== 'banned') throw new Error('expected a ban');
    expect(last.retryAfterSeconds).toBe(900);
    expect(rateLimitHeaders(last.state)).toEqual({
      'X-RateLimit-Limit': '1',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(Math.ceil((T0 + 500 + 900_000) / 1000)),
      'RateLimit-Policy': '"minute";q=1;w=60, "day";q=100;w=86400, "ban";q=0;w=900',
      RateLimit: '"ban";r=0;t=900',
    });
    clock.advance(899_100);
    const later = await limiter.consume(key('key_a'));
    expect(later).toMatchObject({ outcome: 'banned', retryAfterSeconds: 1 });
    expect(rateLimitHeaders(later.state).RateLimit).toBe('"ban";r=0;t=1');
  });

  it('answers a banned key from the container\'s memory (no write taken from the shards), then checks again', async () => {
    const { limiter, calls, clock, account, admin } = setup();
    const key = await account({ perMinute: 10, perDay: 100 });
    await admin.ban('acct_1', 'key_a', T0 + 600_000, clock.now());
    expect((await limiter.consume(key('key_a'))).outcome).toBe('banned');
    calls.length = 0;
    expect(outcomes(await consumeTimes(limiter, key('key_a'), 20))).toEqual(Array(20).fill('banned'));
    expect(calls).toEqual([]);
    // An operator lifts the ban: the container learns it within BAN_MEMORY_MS.
    await admin.liftBan('acct_1', 'key_a', clock.now());
    expect((await limiter.consume(key('key_a'))).outcome).toBe('banned');
    clock.advance(BAN_MEMORY_MS);
    expect((await limiter.consume(key('key_a'))).outcome).toBe('allowed');
  });

  it('tells a banned or revoked key so even when the container answers a spent budget from memory', async () => {
    const { limiter, calls, account, admin, clock } = setup();
    const key = await account({ perMinute: 1, perDay: 100 });
    await limiter.consume(key('key_a'));
    expect((await limiter.consume(key('key_a'))).outcome).toBe('rate_limited');
    await admin.ban('acct_1', 'key_b', T0 + 600_000, clock.now());
    await admin.markRevoked('acct_1', 'key_c', T0 + 35_000, clock.now());
    calls.length = 0;
    // The container knows the shard is spent: no shard write, but the key's own item is read for its
    // strikes; the banned refusal is counted for the usage history on that key item (the container's first).
    expect(await limiter.consume(key('key_b'))).toMatchObject({ outcome: 'banned', retryAfterSeconds: 600 });
    expect((await limiter.consume(key('key_c'))).outcome).toBe('revoked');
    expect(calls).toEqual(['get', 'adjustCounters', 'get']);
  });

  it('refuses a revoked key at once as revoked, its siblings unaffected, until the marker expires', async () => {
    const { limiter, clock, account, admin } = setup();
    const key = await account({ perMinute: 10, perDay: 100 });
    await admin.markRevoked('acct_1', 'key_a', T0 + 35_000, clock.now());
    expect((await limiter.consume(key('key_a'))).outcome).toBe('revoked');
    expect((await limiter.consume(key('key_b'))).outcome).toBe('allowed');
    clock.set(T0 + 35_000);
    expect((await limiter.consume(key('key_a'))).outcome).toBe('allowed');
  });

  it('never bans anonymous callers, and refuses them per IP with their own limits', async () => {
    const { limiter, anonymous } = setup();
    const ip = anonymous({ perMinute: 2, perDay: 50 });
    const decisions = await consumeTimes(limiter, ip, 40);
    expect(outcomes(decisions.slice(0, 3))).toEqual(['allowed', 'allowed', 'rate_limited']);
    expect(decisions.every((d) => d.outcome !== 'banned')).toBe(true);
    expect((await limiter.consume(anonymous({ perMinute: 2, perDay: 50 }, '198.51.100.1'))).outcome).toBe('allowed');
  });
});

describe('RateLimiter.peek', () => {
  it('judges without counting: a read is allowed on a spent budget, a send is refused', async () => {
    const { limiter, account, admin, clock } = setup();
    const key = await account({ perMinute: 1, perDay: 100 });
    expect((await limiter.peek(key('key_a'), 'send')).outcome).toBe('allowed');
    expect(await admin.usage('acct_1', clock.now())).toMatchObject({ minute: 0 });
    await limiter.consume(key('key_a'));
    expect((await limiter.peek(key('key_b'), 'read')).outcome).toBe('allowed');
    expect(await limiter.peek(key('key_b'), 'send')).toMatchObject({ outcome: 'rate_limited', window: 'minute' });
  });

  it('refuses a banned key even for a read, and an anonymous caller past its budget for a send', async () => {
    const { limiter, account, admin, clock, anonymous } = setup();
    const key = await account({ perMinute: 5, perDay: 100 });
    await admin.ban('acct_1', 'key_a', T0 + 60_000, clock.now());
    expect((await limiter.peek(key('key_a'), 'read')).outcome).toBe('banned');
    const ip = anonymous({ perMinute: 1, perDay: 10 });
    await limiter.consume(ip);
    expect((await limiter.peek(ip, 'read')).outcome).toBe('allowed');
    expect((await limiter.peek(ip, 'send')).outcome).toBe('rate_limited');
  });
});
