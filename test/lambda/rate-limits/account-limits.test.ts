import { describe, expect, it } from 'vitest';
import { AccountLimits } from '../../../lambda/rate-limits/account-limits.js';
import { dayCounter, keyDayCounter, keyLastUsed, keyMinuteCounter, minuteCounter } from '../../../lambda/rate-limits/limiter-item.js';
import { MemoryLimiterStore } from '../../support/memory-limiter-store.js';
import { RateLimiter } from '../../../lambda/rate-limits/rate-limiter.js';
import { ManualClock } from '../../support/clock.js';
import { BAN, consumeTimes, DAY_OF_T0, MINUTE_OF_T0, outcomes, T0 } from './limiter-fixtures.js';

function setup() {
  const store = new MemoryLimiterStore();
  const clock = new ManualClock(T0 + 1_000);
  return { store, clock, admin: new AccountLimits(store), limiter: new RateLimiter(store, clock) };
}
const M = `m${MINUTE_OF_T0}`;
const D = `d${DAY_OF_T0}`;

describe('AccountLimits.provision', () => {
  it('gives a small plan one item holding the whole budget, and a big one slices that sum to it', async () => {
    const { store, admin, clock } = setup();
    await admin.provision('a', { perMinute: 60, perDay: 1_000 }, clock.now());
    expect(store.raw('acct#a')).toEqual({ id: 'acct#a', minuteLimit: 60, dayLimit: 1_000, perMinute: 60, perDay: 1_000, shards: 1 });
    expect(store.raw('acct#a#1')).toBeUndefined();
    await admin.provision('b', { perMinute: 90_000, perDay: 900_001 }, clock.now());
    expect([0, 1, 2].map((i) => store.raw(i === 0 ? 'acct#b' : `acct#b#${i}`))).toEqual([
      { id: 'acct#b', minuteLimit: 30_000, dayLimit: 300_001, perMinute: 90_000, perDay: 900_001, shards: 3 },
      { id: 'acct#b#1', minuteLimit: 30_000, dayLimit: 300_000, perMinute: 90_000, perDay: 900_001, shards: 3 },
      { id: 'acct#b#2', minuteLimit: 30_000, dayLimit: 300_000, perMinute: 90_000, perDay: 900_001, shards: 3 },
    ]);
  });

  it('moves the counts of retired shards to the first one when the count shrinks, so the window keeps what it spent', async () => {
    const { store, admin, clock, limiter } = setup();
    await admin.provision('a', { perMinute: 90_000, perDay: 900_000 }, clock.now());
    await store.adjustCounters('acct#a#1', { [M]: 400, [D]: 400, [`key_x/${M}`]: 400, [`key_x/${D}`]: 400 });
    await store.adjustCounters('acct#a#2', { [M]: 300, [D]: 300 });
    await admin.provision('a', { perMinute: 600, perDay: 10_000 }, clock.now());
    expect(store.raw('acct#a')).toMatchObject({ minuteLimit: 600, shards: 1, [M]: 700, [D]: 700, [`key_x/${M}`]: 400, [`key_x/${D}`]: 400 });
    expect(store.raw('acct#a#1')).toMatchObject({ minuteLimit: 0, dayLimit: 0, shards: 1, [M]: 0, [D]: 0, [`key_x/${M}`]: 0 });
    expect(await admin.usage('a', clock.now())).toMatchObject({ shards: 1, minute: 700, day: 700 });
    const stale = { kind: 'key' as const, keyId: 'key_x', accountId: 'a', limits: { perMinute: 90_000, perDay: 900_000 }, ban: BAN };
    expect((await limiter.consume(stale)).outcome).toBe('rate_limited');
  });

  it('spreads what the first shard holds beyond its new slice when the count grows: exactly the new budget is left', async () => {
    const { store, admin, clock, limiter } = setup();
    await admin.provision('a', { perMinute: 600, perDay: 1_000 }, clock.now());
    await store.adjustCounters('acct#a', { [M]: 10, [D]: 900 });
    await admin.ban('a', 'key_banned', T0 + 600_000, clock.now());
    const limits = { perMinute: 90_000, perDay: 1_200 };
    await admin.provision('a', limits, clock.now());
    expect([0, 1, 2].map((i) => store.raw(i === 0 ? 'acct#a' : `acct#a#${i}`)?.[D])).toEqual([400, 400, 100]);
    // The new shards know the key's ban too.
    expect(store.raw('acct#a#2')).toMatchObject({ 'key_banned/b': T0 + 600_000 });
    const key = { kind: 'key' as const, keyId: 'key_y', accountId: 'a', limits, ban: BAN };
    const decisions = await consumeTimes(limiter, key, 301);
    expect(outcomes(decisions).filter((o) => o === 'allowed')).toHaveLength(300);
    expect(decisions[300]?.outcome).toBe('rate_limited');
  });
});

/** A key's requests counted on a shard (as tryConsume leaves them), and its last use. */
const counts = (keyId: string, minuteWindow: number, minute: number, day: number, lastUsedAt?: number) => ({
  [minuteCounter(minuteWindow)]: minute,
  [dayCounter(DAY_OF_T0)]: day,
  [keyMinuteCounter(keyId, minuteWindow)]: minute,
  [keyDayCounter(keyId, DAY_OF_T0)]: day,
  ...(lastUsedAt === undefined ? {} : { [keyLastUsed(keyId)]: lastUsedAt }),
});

describe('AccountLimits: usage, revocation, bans', () => {
  it('sums the account and each key over the shards, with last uses and active bans', async () => {
    const { store, admin, clock } = setup();
    await admin.provision('a', { perMinute: 60_000, perDay: 1_000_000 }, clock.now());
    await store.adjustCounters('acct#a', counts('k1', MINUTE_OF_T0, 2, 5, 111));
    await store.adjustCounters('acct#a#1', counts('k1', MINUTE_OF_T0, 1, 1, 222));
    await store.adjustCounters('acct#a#1', counts('k2', MINUTE_OF_T0 - 5, 7, 0));
    await admin.ban('a', 'k2', T0 + 60_000, clock.now());
    const usage = await admin.usage('a', clock.now());
    expect(usage).toMatchObject({ limits: { perMinute: 60_000, perDay: 1_000_000 }, shards: 2, minute: 3, day: 6 });
    expect(Object.fromEntries(usage.keys)).toEqual({
      k1: { minute: 3, day: 6, lastUsedAt: 222 },
      k2: { minute: 0, day: 0, bannedUntil: T0 + 60_000 },
    });
  });

  it('marks a revoked key on every shard and answers its last use; lifts a ban on every shard and says whether there was one', async () => {
    const { store, admin, clock } = setup();
    await admin.provision('a', { perMinute: 60_000, perDay: 1_000_000 }, clock.now());
    await store.adjustCounters('acct#a#1', counts('k1', MINUTE_OF_T0, 1, 1, 333));
    expect(await admin.markRevoked('a', 'k1', T0 + 35_000, clock.now())).toBe(333);
    expect([store.raw('acct#a')?.['k1/x'], store.raw('acct#a#1')?.['k1/x']]).toEqual([T0 + 35_000, T0 + 35_000]);
    await admin.ban('a', 'k2', T0 + 60_000, clock.now());
    await store.restartStrikes('key#k2', undefined, clock.now());
    expect(await admin.liftBan('a', 'k2', clock.now())).toBe(true);
    expect(store.raw('acct#a#1')).not.toHaveProperty('k2/b');
    expect(store.raw('key#k2')).toEqual({ id: 'key#k2', strikeCount: 0 });
    expect(await admin.liftBan('a', 'k2', clock.now())).toBe(false);
  });
});
