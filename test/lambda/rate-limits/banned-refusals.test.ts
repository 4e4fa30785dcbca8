import { describe, expect, it, vi } from 'vitest';
import { BANNED_FLUSH_INTERVAL_MS, BannedRefusalTally } from '../../../lambda/rate-limits/banned-refusals.js';
import { ManualClock } from '../../support/clock.js';
import { MemoryLimiterStore } from '../../support/memory-limiter-store.js';
import { consumeTimes, setup, T0 } from './limiter-fixtures.js';

describe('BannedRefusalTally', () => {
  it('writes the first refusal at once, adds up the rest, and writes them when the interval has passed, with no further refusal', async () => {
    const store = new MemoryLimiterStore();
    const clock = new ManualClock(T0);
    const tally = new BannedRefusalTally(clock);
    const writes = vi.spyOn(store, 'adjustCounters');
    await tally.note(store, 'key_a', T0);
    expect((await store.get('key#key_a'))?.refusals).toEqual({ 'banned:2026-11-21': 1 });
    for (let i = 1; i <= 4; i++) {
      clock.advance(1000);
      await tally.note(store, 'key_a', clock.now());
    }
    await clock.settled();
    expect((await store.get('key#key_a'))?.refusals).toEqual({ 'banned:2026-11-21': 1 });
    expect([...tally.unwritten()]).toEqual([['key_a 2026-11-21', 4]]);
    // The flood stops; the interval ends: the trailing write takes what it left.
    clock.advance(1000);
    await clock.settled();
    expect((await store.get('key#key_a'))?.refusals).toEqual({ 'banned:2026-11-21': 5 });
    expect(tally.unwritten().size).toBe(0);
    expect(writes).toHaveBeenCalledTimes(2);
    // A refusal right after a write waits for the next interval.
    await tally.note(store, 'key_b', clock.now());
    expect(await store.get('key#key_b')).toBeUndefined();
    clock.advance(BANNED_FLUSH_INTERVAL_MS - 1);
    await clock.settled();
    expect(await store.get('key#key_b')).toBeUndefined();
    clock.advance(1);
    await clock.settled();
    expect((await store.get('key#key_b'))?.refusals).toEqual({ 'banned:2026-11-21': 1 });
    expect(writes).toHaveBeenCalledTimes(3);
  });

  it('keeps the counts of a failed write for the next one', async () => {
    const store = new MemoryLimiterStore();
    const failing = Object.assign(Object.create(store) as MemoryLimiterStore, {
      adjustCounters: () => Promise.reject(new Error('throttled')),
    });
    const tally = new BannedRefusalTally(new ManualClock(T0));
    await expect(tally.note(failing, 'key_a', T0)).resolves.toBeUndefined();
    expect([...tally.unwritten()]).toEqual([['key_a 2026-11-21', 1]]);
    await tally.note(store, 'key_a', T0 + BANNED_FLUSH_INTERVAL_MS);
    expect((await store.get('key#key_a'))?.refusals).toEqual({ 'banned:2026-11-21': 2 });
  });

  it('counts refusals on the UTC day they happened', async () => {
    const store = new MemoryLimiterStore();
    const tally = new BannedRefusalTally(new ManualClock(T0));
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
    // The first refusal was written at once; the 19 after it once the interval has passed.
    clock.advance(BANNED_FLUSH_INTERVAL_MS);
    await clock.settled();
    expect((await memory.get('key#key_a'))?.refusals).toEqual({ 'banned:2026-11-21': 20 });
    calls.length = 0;
    expect((await limiter.consume(key('key_a'))).outcome).toBe('banned');
    // The container checks the ban again on the shard (its memory of bans is short), whose refusal
    // writes nothing; the count waits for the next interval.
    expect(calls).toEqual(['tryConsume']);
    clock.advance(BANNED_FLUSH_INTERVAL_MS);
    await clock.settled();
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
    let started = () => {};
    const writing = new Promise<void>((resolve) => {
      started = resolve;
    });
    const write = memory.adjustCounters.bind(memory);
    memory.adjustCounters = async (...args: Parameters<MemoryLimiterStore['adjustCounters']>) => {
      started();
      await gate;
      return write(...args);
    };
    let answered = false;
    const decision = limiter.consume(key('key_a')).then((d) => {
      answered = true;
      return d;
    });
    // The write has started and is held: one more turn of the event loop, and still no answer.
    await writing;
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    release();
    expect((await decision).outcome).toBe('banned');
    expect((await memory.get('key#key_a'))?.refusals).toEqual({ 'banned:2026-11-21': 1 });
  });
});
