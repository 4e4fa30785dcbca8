import { describe, expect, it } from 'vitest';
import { BAN, consumeTimes, outcomes, setup, T0 } from './limiter-fixtures.js';

const DAY_MS = 86_400_000;

describe('strike: refusal counts for the usage history', () => {
  it('counts each rate-limited 429 of a key in its rateLimited counter of the UTC day, with the strike write', async () => {
    const { limiter, memory, calls, account } = setup();
    const key = await account({ perMinute: 2, perDay: 100 });
    await consumeTimes(limiter, key('key_a'), 2);
    calls.length = 0;
    expect(outcomes(await consumeTimes(limiter, key('key_a'), 3))).toEqual(['rate_limited', 'rate_limited', 'rate_limited']);
    expect((await memory.get('key#key_a'))?.refusals).toEqual({ 'rateLimited:2026-11-21': 3 });
    // No write beyond the strikes themselves: one restart, then two adds.
    expect(calls.filter((c) => c !== 'get' && c !== 'tryConsume')).toEqual(['restartStrikes', 'addStrike', 'addStrike']);
  });

  it('counts the request that crosses the ban threshold once, as rate limited (its strike was written)', async () => {
    const { limiter, memory, account } = setup();
    const key = await account({ perMinute: 1, perDay: 100 });
    await limiter.consume(key('key_a'));
    const refused = outcomes(await consumeTimes(limiter, key('key_a'), BAN.threshold + 1));
    expect(refused).toEqual([...Array<string>(BAN.threshold).fill('rate_limited'), 'banned']);
    expect((await memory.get('key#key_a'))?.refusals).toEqual({ 'rateLimited:2026-11-21': BAN.threshold + 1 });
  });

  it('removes refusal counters past retention when a strike window starts, and keeps the recent ones', async () => {
    const { limiter, memory, clock, account } = setup();
    await memory.adjustCounters('key#key_a', { 'rateLimited:2026-10-01': 7, 'banned:2026-10-16': 2, 'rateLimited:2026-11-20': 4 });
    const key = await account({ perMinute: 1, perDay: 100 });
    clock.set(T0);
    await limiter.consume(key('key_a'));
    expect((await limiter.consume(key('key_a'))).outcome).toBe('rate_limited');
    // 2026-11-21 less 35 days is 2026-10-17: the two older counters go.
    expect((await memory.get('key#key_a'))?.refusals).toEqual({ 'rateLimited:2026-11-20': 4, 'rateLimited:2026-11-21': 1 });
    expect(T0 - 35 * DAY_MS).toBe(Date.UTC(2026, 9, 17, 10, 15));
  });
});
