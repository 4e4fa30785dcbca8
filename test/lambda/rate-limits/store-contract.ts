import { describe, expect, it } from 'vitest';
import type { ConsumeCondition, Counted, LimiterStore, Refused } from '../../../lambda/rate-limits/limiter-store.js';

/**
 * The behaviour both limiter stores must have, on the raw attributes they leave: the DynamoDB
 * store against dynalite, the in-memory one in process. `raw` reads an item's attributes as
 * stored (independently of the store under test).
 */
export interface StoreUnderTest {
  readonly store: LimiterStore;
  raw(id: string): Promise<Record<string, unknown> | undefined>;
  /** Whether a refusal comes with the item (DynamoDB's ReturnValuesOnConditionCheckFailure; dynalite ignores it). */
  readonly refusalCarriesItem: boolean;
}

export const MINUTE = 29_920_935;
export const DAY = 20_778;
export const NOW = MINUTE * 60_000 + 10_000;
const SLICE = { slice: { perMinute: 3, perDay: 10 }, account: { perMinute: 6, perDay: 20 }, shards: 2 };

let n = 0;
/** A fresh item id per test. */
export const fresh = (prefix = 'acct') => `${prefix}#c${++n}-${Math.random().toString(36).slice(2, 8)}`;

export const at = (minute: number, day = DAY, extra: Partial<ConsumeCondition> = {}): ConsumeCondition => ({
  minuteWindow: minute,
  dayWindow: day,
  limits: 'stored',
  nowMs: minute * 60_000 + 1_000,
  ...extra,
});

const counted = (r: Counted | Refused): Counted => {
  if (!r.counted) throw new Error('expected the write to count');
  return r;
};

export function storeContract(name: string, setup: () => StoreUnderTest): void {
  describe(`${name}: counting on an account shard (stored slice)`, () => {
    it('counts the account and the key in counters named after the windows, and keeps the key\'s last use', async () => {
      const { store, raw } = setup();
      const id = fresh();
      await store.provision(id, SLICE);
      counted(await store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_a' })));
      const second = counted(await store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_b' })));
      expect(second.item).toMatchObject({
        minute: { window: MINUTE, count: 2 },
        day: { window: DAY, count: 2 },
        minuteLimit: 3,
        dayLimit: 10,
        perMinute: 6,
        perDay: 20,
        shards: 2,
      });
      expect(second.item.keys.key_b).toEqual({
        minute: { window: MINUTE, count: 1 },
        day: { window: DAY, count: 1 },
        lastUsedAt: MINUTE * 60_000 + 1_000,
      });
      expect(await raw(id)).toEqual({
        id,
        minuteLimit: 3,
        dayLimit: 10,
        perMinute: 6,
        perDay: 20,
        shards: 2,
        [`m${MINUTE}`]: 2,
        [`d${DAY}`]: 2,
        [`key_a/m${MINUTE}`]: 1,
        [`key_a/d${DAY}`]: 1,
        'key_a/u': MINUTE * 60_000 + 1_000,
        [`key_b/m${MINUTE}`]: 1,
        [`key_b/d${DAY}`]: 1,
        'key_b/u': MINUTE * 60_000 + 1_000,
      });
    });

    it('refuses at the slice of the minute and of the day, changing nothing, with the item when the store gets it', async () => {
      const { store, raw, refusalCarriesItem } = setup();
      const id = fresh();
      await store.provision(id, { ...SLICE, slice: { perMinute: 2, perDay: 3 } });
      counted(await store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_a' })));
      counted(await store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_a' })));
      const before = await raw(id);
      const refused = await store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_a' }));
      expect(refused.counted).toBe(false);
      if (refusalCarriesItem) expect(refused).toMatchObject({ item: { minute: { window: MINUTE, count: 2 } } });
      else expect(refused).toEqual({ counted: false });
      expect(await raw(id)).toEqual(before);
      counted(await store.tryConsume(id, at(MINUTE + 1, DAY, { keyId: 'key_a' })));
      expect((await store.tryConsume(id, at(MINUTE + 2, DAY, { keyId: 'key_a' }))).counted).toBe(false);
    });

    it('refuses on an item with no slice, or a slice of 0 (a retired shard), and creates nothing', async () => {
      const { store, raw } = setup();
      const missing = fresh();
      expect((await store.tryConsume(missing, at(MINUTE))).counted).toBe(false);
      expect(await raw(missing)).toBeUndefined();
      const retired = fresh();
      await store.provision(retired, { ...SLICE, slice: { perMinute: 0, perDay: 0 } });
      expect((await store.tryConsume(retired, at(MINUTE))).counted).toBe(false);
      expect(await raw(retired)).not.toHaveProperty(`m${MINUTE}`);
    });

    it('rolls the windows over in the same single write, removing the previous windows\' counters', async () => {
      const { store, raw } = setup();
      const id = fresh();
      await store.provision(id, SLICE);
      counted(await store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_a' })));
      counted(await store.tryConsume(id, at(MINUTE + 1, DAY + 1, { keyId: 'key_a' })));
      const item = await raw(id);
      expect(item).toMatchObject({ [`m${MINUTE + 1}`]: 1, [`d${DAY + 1}`]: 1, [`key_a/m${MINUTE + 1}`]: 1, [`key_a/d${DAY + 1}`]: 1 });
      for (const gone of [`m${MINUTE}`, `d${DAY}`, `key_a/m${MINUTE}`, `key_a/d${DAY}`]) expect(item).not.toHaveProperty(gone);
    });

    it('refuses a write in a window that has already rolled over on the item (a container whose clock is behind)', async () => {
      const { store } = setup();
      const id = fresh();
      await store.provision(id, SLICE);
      counted(await store.tryConsume(id, at(MINUTE + 1)));
      expect((await store.tryConsume(id, at(MINUTE))).counted).toBe(false);
      const nextDay = fresh();
      await store.provision(nextDay, SLICE);
      counted(await store.tryConsume(nextDay, at(MINUTE, DAY + 1)));
      expect((await store.tryConsume(nextDay, at(MINUTE, DAY))).counted).toBe(false);
    });

    it('refuses a key with an active ban or revocation marker, and counts it again once the marker has expired', async () => {
      const { store } = setup();
      const id = fresh();
      await store.provision(id, SLICE);
      expect(await store.setKeyMarker(id, 'key_a', 'ban', NOW + 60_000, NOW)).toBe(true);
      expect(await store.setKeyMarker(id, 'key_b', 'revoked', NOW + 30_000, NOW)).toBe(true);
      expect((await store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_a', nowMs: NOW }))).counted).toBe(false);
      expect((await store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_b', nowMs: NOW }))).counted).toBe(false);
      counted(await store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_c', nowMs: NOW })));
      counted(await store.tryConsume(id, at(MINUTE + 1, DAY, { keyId: 'key_a', nowMs: NOW + 60_000 })));
      counted(await store.tryConsume(id, at(MINUTE + 1, DAY, { keyId: 'key_b', nowMs: NOW + 30_000 })));
    });

    it('never shortens an active ban, sets markers only on existing items, and clears them', async () => {
      const { store, raw } = setup();
      const id = fresh();
      expect(await store.setKeyMarker(id, 'key_a', 'ban', NOW + 60_000, NOW)).toBe(false);
      expect(await raw(id)).toBeUndefined();
      await store.provision(id, SLICE);
      expect(await store.setKeyMarker(id, 'key_a', 'ban', NOW + 60_000, NOW)).toBe(true);
      expect(await store.setKeyMarker(id, 'key_a', 'ban', NOW + 10_000, NOW)).toBe(false);
      expect(await raw(id)).toMatchObject({ 'key_a/b': NOW + 60_000 });
      // An expired ban is replaced.
      expect(await store.setKeyMarker(id, 'key_a', 'ban', NOW + 120_000, NOW + 60_000)).toBe(true);
      await store.clearKeyMarker(id, 'key_a', 'ban');
      expect(await raw(id)).not.toHaveProperty('key_a/b');
    });

    it('accepts exactly the slice of concurrent requests', async () => {
      const { store } = setup();
      const id = fresh();
      await store.provision(id, { ...SLICE, slice: { perMinute: 7, perDay: 100 } });
      const results = await Promise.all(Array.from({ length: 20 }, () => store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_a' }))));
      const counts = results.filter((r): r is Counted => r.counted).map((r) => r.item.minute?.count);
      expect(counts.sort((a = 0, b = 0) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    });

    it('hands over tidying of long-past counters and expired markers (a revoked key\'s last use with its marker)', async () => {
      const { store, raw } = setup();
      const id = fresh();
      await store.provision(id, SLICE);
      counted(await store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_a' })));
      await store.setKeyMarker(id, 'key_a', 'revoked', MINUTE * 60_000 + 5_000, NOW);
      await store.setKeyMarker(id, 'key_b', 'ban', MINUTE * 60_000 + 5_000, 0);
      const later = counted(await store.tryConsume(id, at(MINUTE + 10, DAY + 3, { keyId: 'key_c' })));
      expect(later.tidy).toBeTypeOf('function');
      await later.tidy?.();
      const item = await raw(id);
      for (const gone of [`m${MINUTE}`, `d${DAY}`, `key_a/m${MINUTE}`, `key_a/d${DAY}`, 'key_a/x', 'key_a/u', 'key_b/b']) {
        expect(item, gone).not.toHaveProperty(gone);
      }
      expect(item).toMatchObject({ [`m${MINUTE + 10}`]: 1, 'key_c/u': (MINUTE + 10) * 60_000 + 1_000 });
      expect((await store.tryConsume(id, at(MINUTE + 10, DAY + 3, { keyId: 'key_c' })) as Counted).tidy).toBeUndefined();
    });
  });

  describe(`${name}: anonymous items (explicit limits)`, () => {
    it('creates the item on first use with its expiry, and compares with the given limits', async () => {
      const { store, raw } = setup();
      const id = fresh('ip');
      const anonymous = (minute: number) =>
        at(minute, DAY, { limits: { perMinute: 2, perDay: 3 }, expiresAtSeconds: 1_795_400_000 });
      counted(await store.tryConsume(id, anonymous(MINUTE)));
      counted(await store.tryConsume(id, anonymous(MINUTE)));
      expect((await store.tryConsume(id, anonymous(MINUTE))).counted).toBe(false);
      counted(await store.tryConsume(id, anonymous(MINUTE + 1)));
      expect((await store.tryConsume(id, anonymous(MINUTE + 2))).counted).toBe(false);
      expect(await raw(id)).toEqual({ id, [`m${MINUTE + 1}`]: 1, [`d${DAY}`]: 3, expiresAt: 1_795_400_000 });
    });
  });

  describe(`${name}: account-service writes`, () => {
    it('provisions a shard keeping its counts, and provisionIfMissing never overwrites a slice', async () => {
      const { store, raw } = setup();
      const id = fresh();
      await store.provisionIfMissing(id, SLICE);
      counted(await store.tryConsume(id, at(MINUTE)));
      await store.provisionIfMissing(id, { ...SLICE, slice: { perMinute: 0, perDay: 0 } });
      expect(await raw(id)).toMatchObject({ minuteLimit: 3, [`m${MINUTE}`]: 1 });
      const nine = { perMinute: 9, perDay: 99 };
      await store.provision(id, { slice: nine, account: nine, shards: 1 });
      expect(await raw(id)).toMatchObject({ minuteLimit: 9, dayLimit: 99, perMinute: 9, perDay: 99, shards: 1, [`m${MINUTE}`]: 1 });
    });

    it('refunds both windows, or only the day once the minute has rolled over, never below 0', async () => {
      const { store, raw } = setup();
      const id = fresh();
      await store.provision(id, SLICE);
      counted(await store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_a' })));
      counted(await store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_a' })));
      await store.refund(id, { minuteWindow: MINUTE, dayWindow: DAY, keyId: 'key_a' });
      expect(await raw(id)).toMatchObject({ [`m${MINUTE}`]: 1, [`d${DAY}`]: 1, [`key_a/m${MINUTE}`]: 1, [`key_a/d${DAY}`]: 1 });
      counted(await store.tryConsume(id, at(MINUTE + 1, DAY, { keyId: 'key_a' })));
      await store.refund(id, { minuteWindow: MINUTE, dayWindow: DAY, keyId: 'key_a' });
      expect(await raw(id)).toMatchObject({ [`m${MINUTE + 1}`]: 1, [`d${DAY}`]: 1, [`key_a/d${DAY}`]: 1 });
      const empty = fresh();
      await store.provision(empty, SLICE);
      await store.refund(empty, { minuteWindow: MINUTE, dayWindow: DAY });
      expect(await raw(empty)).not.toHaveProperty(`d${DAY}`);
    });

    it('counts strikes in a window, restarts it, creates a key item for its first strike, and resets', async () => {
      const { store, raw } = setup();
      const id = fresh('key');
      expect(await store.addStrike(id, NOW)).toBeUndefined();
      expect(await store.restartStrikes(id, undefined, NOW)).toBe(true);
      expect(await store.restartStrikes(id, undefined, NOW)).toBe(false);
      expect(await store.addStrike(id, NOW)).toBe(2);
      expect(await store.restartStrikes(id, NOW, NOW + 61_000)).toBe(true);
      expect(await raw(id)).toEqual({ id, strikeWindowStart: NOW + 61_000, strikeCount: 1 });
      await store.resetStrikes(id);
      expect(await raw(id)).toEqual({ id, strikeCount: 0 });
    });

    it('counts a refusal with a strike write, and removes the expired refusal counters it is given', async () => {
      const { store, raw } = setup();
      const id = fresh('key');
      const today = 'rateLimited:2026-11-21';
      expect(await store.restartStrikes(id, undefined, NOW, { counter: today })).toBe(true);
      expect(await store.addStrike(id, NOW, { counter: today })).toBe(2);
      // A write that loses its race counts nothing.
      expect(await store.addStrike(id, NOW - 1, { counter: today })).toBeUndefined();
      await store.adjustCounters(id, { 'banned:2026-10-01': 3 });
      expect(await store.restartStrikes(id, NOW, NOW + 61_000, { counter: today, expired: ['banned:2026-10-01'] })).toBe(true);
      expect(await raw(id)).toEqual({ id, strikeWindowStart: NOW + 61_000, strikeCount: 1, [today]: 3 });
      expect((await store.get(id))?.refusals).toEqual({ [today]: 3 });
    });

    it('adjusts counters both ways (resharding)', async () => {
      const { store, raw } = setup();
      const id = fresh();
      await store.provision(id, SLICE);
      await store.adjustCounters(id, { [`m${MINUTE}`]: 2, [`d${DAY}`]: 6, [`key_a/d${DAY}`]: 6 });
      expect(await raw(id)).toMatchObject({ [`m${MINUTE}`]: 2, [`d${DAY}`]: 6, [`key_a/d${DAY}`]: 6 });
      await store.adjustCounters(id, { [`m${MINUTE}`]: -2, [`d${DAY}`]: 4 });
      expect(await raw(id)).toMatchObject({ [`m${MINUTE}`]: 0, [`d${DAY}`]: 10 });
    });
  });

  describe(`${name}: get`, () => {
    it('reads the latest counters, and each key\'s counters, ban and last use', async () => {
      const { store } = setup();
      const id = fresh();
      await store.provision(id, SLICE);
      counted(await store.tryConsume(id, at(MINUTE, DAY, { keyId: 'key_a' })));
      await store.setKeyMarker(id, 'key_a', 'ban', NOW + 5, NOW);
      expect(await store.get(id)).toEqual({
        id,
        minuteLimit: 3,
        dayLimit: 10,
        perMinute: 6,
        perDay: 20,
        shards: 2,
        minute: { window: MINUTE, count: 1 },
        day: { window: DAY, count: 1 },
        keys: {
          key_a: {
            minute: { window: MINUTE, count: 1 },
            day: { window: DAY, count: 1 },
            lastUsedAt: MINUTE * 60_000 + 1_000,
            banUntil: NOW + 5,
          },
        },
      });
      expect(await store.get(fresh())).toBeUndefined();
    });
  });
}
