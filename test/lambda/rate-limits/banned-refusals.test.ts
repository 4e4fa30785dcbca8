import { describe, expect, it } from 'vitest';
import { BANNED_FLUSH_INTERVAL_MS, BannedRefusalTally } from '../../../lambda/rate-limits/banned-refusals.js';
import { MemoryLimiterStore } from '../../support/memory-limiter-store.js';
import { consumeTimes, setup, T0 } from './limiter-fixtures.js';

describe('BannedRefusalTally', () => {
  it('writes the first refusal at once, then adds up the rest until the interval has passed', async () => {
    const store = new MemoryLimiterStore();
    const tally = new BannedRefusalTally();
    await tally.note(store, 'key_a', T0);
    expect((await store.get('key#key_a'))?.refusals).toEqual({ 'banned:2026-11-21': 1 });
    for (let i = 1; i <= 4; i++) await tally.note(store, 'key_a', T0 + i * 1000);
    expect((await store.get('key#key_a'))?.refusals).toEqual({ 'banned:2026-11-21': 1 });
    expect([...tally.unwritten()]).toEqual([['key_a 2026-11-21', 4]]);
    await tally.note(store, 'key_b', T0 + BANNED_FLUSH_INTERVAL_MS);
    expect((await store.get('key#key_a'))?.refusals).toEqual({ 'banned:2026-11-21': 5 });
    expect((await store.get('key#key_b'))?.refusals).toEqual({ 'banned:2026-11-21': 1 });
    expect(tally.unwritten().size).toBe(0);
  });

  it('keeps the counts of a failed write for the next one', async () => {
    const store = new MemoryLimiterStore();
    const failing = Object.assign(Object.create(store) as MemoryLimiterStore, {
      adjustCounters: () => Promise.reject(new Error('throttled')),
    });
    const tally = new BannedRefusalTally();
    await expect(tally.note(failing, 'key_a', T0)).resolves.toBeUndefined();
    expect([...tally.unwritten()]).toEqual([['key_a 2026-11-21', 1]]);
    await tally.note(store, 'key_a', T0 + BANNED_FLUSH_INTERVAL_MS);
    expect((await store.get('key#key_a'))?.refusals).toEqual({ 'banned:2026-11-21': 2 });
  });

  it('counts refusals on the UTC day they happened', async () => {
    const store = new MemoryLimiterStore();
    const tally = new BannedRefusalTally();
    await tally.note(store, 'key_a', Date.UTC(2026, 10, 21, 23, 59, 59));
    await tally.note(store, 'key_a', Date.UTC(2026, 10, 22, 0, 0, 5));
    expect((await store.get('key#key_a'))?.refusals).toEqual({ 'banned:2026-11-21': 1, 'banned:2026-11-22': 1 });
  });
});

describe('RateLimiter: banned refusals', () => {
  it('counts the 429s of a banned key as banned, written in batches, never on the shards', async () => {
    const { limiter, memory, calls, clock, account, admin } = setup();
    const key = await account({ perMinute: 10, perDay: 100 });
    await admin.ban('acct_1', 'key_a', T0 + 600_000, clock.now());
    await consumeTimes(limiter, key('key_a'), 20);
    clock.advance(BANNED_FLUSH_INTERVAL_MS);
    calls.length = 0;
    expect((await limiter.consume(key('key_a'))).outcome).toBe('banned');
    // The container checks the ban again on the shard (its memory of bans is short), whose refusal
    // writes nothing; then one write adds the 20 refusals it held since the first.
    expect(calls).toEqual(['tryConsume', 'adjustCounters']);
    expect((await memory.get('key#key_a'))?.refusals).toEqual({ 'banned:2026-11-21': 21 });
    expect((await memory.get('acct#acct_1'))?.refusals).toBeUndefined();
  });

  it('answers a ban only once the count write its refusal started is done (a frozen Lambda would lose it)', async () => {
    const { limiter, memory, clock, account, admin } = setup();
    const key = await account({ perMinute: 10, perDay: 100 });
    await admin.ban('acct_1', 'key_a', T0 + 600_000, clock.now());
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const write = memory.adjustCounters.bind(memory);
    memory.adjustCounters = async (...args: Parameters<MemoryLimiterStore['adjustCounters']>) => {
      await gate;
      return write(...args);
    };
    let answered = false;
    const decision = limiter.consume(key('key_a')).then((d) => {
      answered = true;
      return d;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    release();
    expect((await decision).outcome).toBe('banned');
    expect((await memory.get('key#key_a'))?.refusals).toEqual({ 'banned:2026-11-21': 1 });
  });
});
