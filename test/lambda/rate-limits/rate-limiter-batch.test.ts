import { describe, expect, it } from 'vitest';
import { rateLimitHeaders } from '../../../lambda/rate-limits/headers.js';
import type { LimiterStore } from '../../../lambda/rate-limits/limiter-store.js';
import type { KeySubject } from '../../../lambda/rate-limits/limiter-decision.js';
import { BAN, DAY_OF_T0, MINUTE_OF_T0, remaining, setup } from './limiter-fixtures.js';

/** An account whose budget is split as given across shards (small numbers; the real split starts at 30,000/min). */
async function sharded(store: LimiterStore, slices: ReadonlyArray<readonly [number, number]>, accountId = 'acct_b') {
  const account = { perMinute: 0, perDay: 0 };
  for (const [m, d] of slices) Object.assign(account, { perMinute: account.perMinute + m, perDay: account.perDay + d });
  for (const [i, [perMinute, perDay]] of slices.entries()) {
    await store.provision(i === 0 ? `acct#${accountId}` : `acct#${accountId}#${i}`, {
      slice: { perMinute, perDay },
      account,
      shards: slices.length,
    });
  }
  return (keyId: string): KeySubject => ({ kind: 'key', keyId, accountId, limits: account, ban: BAN });
}

describe('RateLimiter: a batch of N requests', () => {
  it('counts N with one write and states what remains after the N', async () => {
    const { limiter, calls, account, memory } = setup();
    const key = (await account({ perMinute: 60, perDay: 1_000 }))('key_a');
    calls.length = 0;
    const decision = await limiter.consume(key, 25);
    expect(decision.outcome).toBe('allowed');
    expect(calls).toEqual(['tryConsume']);
    expect(remaining(decision)).toEqual({ minute: 35, day: 975 });
    expect(rateLimitHeaders(decision.state)['X-RateLimit-Remaining']).toBe('35');
    const item = memory.raw('acct#acct_1') ?? {};
    expect(item[`m${MINUTE_OF_T0}`]).toBe(25);
    expect(item[`key_a/d${DAY_OF_T0}`]).toBe(25);
    expect(decision.outcome === 'allowed' && decision.consumption).toEqual({
      item: 'acct#acct_1',
      minuteWindow: MINUTE_OF_T0,
      dayWindow: DAY_OF_T0,
      keyId: 'key_a',
      units: 25,
    });
  });

  it('refuses a batch larger than what remains, counts nothing, and names the window with what is left', async () => {
    const { limiter, account, memory } = setup();
    const key = (await account({ perMinute: 60, perDay: 1_000 }))('key_a');
    await limiter.consume(key, 20);
    const refused = await limiter.consume(key, 41);
    expect(refused).toMatchObject({ outcome: 'rate_limited', window: 'minute', retryAfterSeconds: 60 });
    expect(rateLimitHeaders(refused.state)['X-RateLimit-Remaining']).toBe('40');
    expect(memory.raw('acct#acct_1')?.[`m${MINUTE_OF_T0}`]).toBe(20);
    // Exactly what remains still fits.
    const fits = await limiter.consume(key, 40);
    expect(fits.outcome).toBe('allowed');
    expect(remaining(fits).minute).toBe(0);
  });

  it('names the day when the day cannot hold the batch, even with the minute fresh', async () => {
    const { limiter, account, clock } = setup();
    const key = (await account({ perMinute: 60, perDay: 100 }))('key_a');
    await limiter.consume(key, 60);
    clock.advance(60_000);
    const refused = await limiter.consume(key, 50);
    expect(refused).toMatchObject({ outcome: 'rate_limited', window: 'day' });
    expect(rateLimitHeaders(refused.state)['X-RateLimit-Remaining']).toBe('40');
  });

  it('refuses a batch larger than the limit itself (it can never fit)', async () => {
    const { limiter, account } = setup();
    const key = (await account({ perMinute: 60, perDay: 1_000 }))('key_a');
    const refused = await limiter.consume(key, 100);
    expect(refused).toMatchObject({ outcome: 'rate_limited', window: 'minute' });
    expect(remaining(refused).minute).toBe(60);
  });

  it('gives back exactly the N on a refund', async () => {
    const { limiter, account, memory } = setup();
    const key = (await account({ perMinute: 60, perDay: 1_000 }))('key_a');
    await limiter.consume(key, 3);
    const decision = await limiter.consume(key, 30);
    if (decision.outcome !== 'allowed' || !decision.consumption) throw new Error('not allowed');
    await limiter.refund(decision.consumption);
    const item = memory.raw('acct#acct_1') ?? {};
    expect([item[`m${MINUTE_OF_T0}`], item[`d${DAY_OF_T0}`], item[`key_a/m${MINUTE_OF_T0}`]]).toEqual([3, 3, 3]);
  });

  it('learns a slice the caller did not expect (a plan change it predates) and counts on it', async () => {
    const { limiter, account, admin, clock, calls } = setup();
    const key = (await account({ perMinute: 60, perDay: 1_000 }))('key_a');
    await admin.provision('acct_1', { perMinute: 300, perDay: 10_000 }, clock.now());
    calls.length = 0;
    // The caller still believes in 60/min: the write pinned to that slice is refused, then counted on 300.
    const decision = await limiter.consume(key, 100);
    expect(decision.outcome).toBe('allowed');
    expect(remaining(decision).minute).toBe(200);
    expect(calls.filter((c) => c === 'tryConsume')).toHaveLength(2);
  });

  it('a banned key is refused as for a single request', async () => {
    const { limiter, account, store, clock } = setup();
    const key = (await account({ perMinute: 60, perDay: 1_000 }))('key_a');
    await store.setKeyMarker('acct#acct_1', 'key_a', 'ban', clock.now() + 60_000, clock.now());
    expect((await limiter.consume(key, 10)).outcome).toBe('banned');
  });
});

describe('RateLimiter: a batch on an account split across shards', () => {
  it('lands whole on one shard with room, trying the others', async () => {
    const { memory, container } = setup();
    const key = await sharded(memory, [[5, 500], [50, 500], [5, 500]]);
    const decision = await container().consume(key('key_a'), 40);
    expect(decision).toMatchObject({ outcome: 'allowed', consumption: { item: 'acct#acct_b#1', units: 40 } });
    expect(memory.raw('acct#acct_b')?.[`m${MINUTE_OF_T0}`]).toBeUndefined();
  });

  it('under-admits a batch that no single shard can hold, though the shards together could', async () => {
    const { memory, container } = setup();
    const key = await sharded(memory, [[30, 500], [30, 500], [30, 500]]);
    const refused = await container().consume(key('key_a'), 40);
    expect(refused).toMatchObject({ outcome: 'rate_limited', window: 'minute' });
    // What the headers state is what one shard holds: the largest batch that fits now.
    expect(rateLimitHeaders(refused.state)['X-RateLimit-Remaining']).toBe('30');
    for (const id of ['acct#acct_b', 'acct#acct_b#1', 'acct#acct_b#2']) {
      expect(memory.raw(id)?.[`m${MINUTE_OF_T0}`], id).toBeUndefined();
    }
  });

  it('does not let a shard too small for a batch stop the container\'s single requests there', async () => {
    const { memory, container } = setup();
    const key = await sharded(memory, [[10, 500]]);
    const limiter = container();
    await limiter.consume(key('key_a'), 8);
    expect((await limiter.consume(key('key_a'), 5)).outcome).toBe('rate_limited');
    expect((await limiter.consume(key('key_a'))).outcome).toBe('allowed');
    expect((await limiter.consume(key('key_a'))).outcome).toBe('allowed');
    expect((await limiter.consume(key('key_a'))).outcome).toBe('rate_limited');
  });
});
