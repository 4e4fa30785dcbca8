import { describe, expect, it } from 'vitest';
import { EXHAUSTION_MEMORY_MS } from '../../../lambda/rate-limits/container-knowledge.js';
import { rateLimitHeaders } from '../../../lambda/rate-limits/headers.js';
import type { LimiterStore } from '../../../lambda/rate-limits/limiter-store.js';
import type { KeySubject } from '../../../lambda/rate-limits/limiter-decision.js';
import { RateLimiter } from '../../../lambda/rate-limits/rate-limiter.js';
import { ManualClock } from '../../support/clock.js';
import { ItemWriteCeiling, THROTTLING_ERROR, withItemWriteCeiling } from '../../../local/item-write-ceiling.js';
import { BAN, consumeTimes, DAY_END, MINUTE_OF_T0, outcomes, remaining, setup, T0 } from './limiter-fixtures.js';

/** An account whose budget is split as given across shards (small numbers; the real split starts at 30,000/min). */
async function sharded(store: LimiterStore, slices: ReadonlyArray<readonly [number, number]>, accountId = 'acct_s') {
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

describe('RateLimiter: an account split across shards', () => {
  it('uses every shard\'s slice before refusing: exactly the account\'s budget, across containers and keys', async () => {
    const { memory, container } = setup();
    const key = await sharded(memory, [[2, 50], [2, 50], [1, 50]]);
    const containers = [container(), container(), container()];
    const decisions = [];
    for (let i = 0; i < 12; i++) decisions.push(await (containers[i % 3] as RateLimiter).consume(key(`key_${i % 2}`)));
    expect(outcomes(decisions)).toEqual([
      ...Array(5).fill('allowed'),
      ...Array(6).fill('rate_limited'),
      // key_1 kept going after 429s: its 4th refusal in a minute bans it (threshold 3).
      'banned',
    ]);
  });

  it('sends a request on from a shard that ran out to one with budget: the writes of that request', async () => {
    const { memory, calls, container } = setup();
    const key = await sharded(memory, [[1, 50], [1, 50]]);
    const a = container();
    const b = container();
    expect((await a.consume(key('key_a'))).outcome).toBe('allowed');
    calls.length = 0;
    // b does not know shard 0 is spent: its write there is refused (with the item), then counted on shard 1.
    const spilled = await b.consume(key('key_b'));
    expect(spilled).toMatchObject({ outcome: 'allowed', consumption: { item: 'acct#acct_s#1' } });
    expect(calls).toEqual(['tryConsume', 'tryConsume']);
  });

  it('states what remains as a lower bound: the request\'s own shard\'s slice, never more than the account has left', async () => {
    const { memory, container } = setup();
    const key = await sharded(memory, [[3, 50], [3, 50]]);
    const d = await container().consume(key('key_a'));
    expect(remaining(d)).toEqual({ minute: 2, day: 49 });
    expect(rateLimitHeaders(d.state)).toMatchObject({ 'X-RateLimit-Limit': '6', 'X-RateLimit-Remaining': '2' });
  });

  it('answers refusals from memory once every shard is known spent, with writes only for strikes', async () => {
    const { memory, calls, clock, container } = setup();
    const key = await sharded(memory, [[1, 50], [1, 50]]);
    const limiter = container();
    await consumeTimes(limiter, key('key_a'), 2);
    expect((await limiter.consume(key('key_a'))).outcome).toBe('rate_limited');
    calls.length = 0;
    expect((await limiter.consume(key('key_b'))).outcome).toBe('rate_limited');
    expect(calls.filter((c) => c === 'tryConsume')).toEqual([]);
    clock.advance(EXHAUSTION_MEMORY_MS);
    calls.length = 0;
    expect((await limiter.consume(key('key_b'))).outcome).toBe('rate_limited');
    expect(calls.filter((c) => c === 'tryConsume')).toHaveLength(2);
  });

  it('refuses for the minute while a shard still has day budget, for the day once every shard spent its day', async () => {
    const { memory, clock, container } = setup();
    const minuteBlocked = await sharded(memory, [[5, 1], [1, 5]], 'acct_m');
    const limiter = container();
    clock.set(T0 + 30_000);
    expect(outcomes(await consumeTimes(limiter, minuteBlocked('key_a'), 2))).toEqual(['allowed', 'allowed']);
    // Shard 0 spent its day, shard 1 its minute: the next minute brings budget back.
    const refused = await limiter.consume(minuteBlocked('key_a'));
    expect(refused).toMatchObject({ outcome: 'rate_limited', window: 'minute', retryAfterSeconds: 30 });
    expect(rateLimitHeaders(refused.state)).toMatchObject({ RateLimit: '"minute";r=0;t=30' });

    const dayBlocked = await sharded(memory, [[5, 1], [2, 2]], 'acct_d');
    expect(outcomes(await consumeTimes(limiter, dayBlocked('key_b'), 3))).toEqual(['allowed', 'allowed', 'allowed']);
    const untilMidnight = (DAY_END - clock.now()) / 1000;
    const dayRefusal = await limiter.consume(dayBlocked('key_b'));
    expect(dayRefusal).toMatchObject({ outcome: 'rate_limited', window: 'day', retryAfterSeconds: untilMidnight });
    expect(rateLimitHeaders(dayRefusal.state)).toMatchObject({ RateLimit: `"day";r=0;t=${untilMidnight}` });
  });

  it('learns a smaller shard count from a retired shard (its caller\'s limits predate a plan change)', async () => {
    const { memory, clock, admin } = setup();
    await admin.provision('acct_r', { perMinute: 90_000, perDay: 1_000_000 }, clock.now());
    await admin.provision('acct_r', { perMinute: 600, perDay: 1_000 }, clock.now());
    const stale: KeySubject = { kind: 'key', keyId: 'key_a', accountId: 'acct_r', limits: { perMinute: 90_000, perDay: 1_000_000 }, ban: BAN };
    // Picks the last open shard: shard 2, retired.
    const limiter = new RateLimiter(memory, clock, (n) => n - 1);
    const d = await limiter.consume(stale);
    expect(d).toMatchObject({ outcome: 'allowed', consumption: { item: 'acct#acct_r' } });
    expect(d.state.minute.limit).toBe(600);
    expect((await limiter.consume(stale))).toMatchObject({ consumption: { item: 'acct#acct_r' } });
  });

  it('counts a container whose clock is behind in the window the shard has rolled over to', async () => {
    const { memory, account } = setup();
    const key = await account({ perMinute: 2, perDay: 100 });
    const ahead = new RateLimiter(memory, new ManualClock(T0 + 60_000));
    const behind = new RateLimiter(memory, new ManualClock(T0 + 59_990));
    expect((await ahead.consume(key('key_a'))).outcome).toBe('allowed');
    const late = await behind.consume(key('key_b'));
    expect(late).toMatchObject({ outcome: 'allowed', consumption: { minuteWindow: MINUTE_OF_T0 + 1 } });
    expect(late.state.minute.resetMs).toBe(T0 + 120_000);
    expect((await behind.consume(key('key_b'))).outcome).toBe('rate_limited');
  });

  it('forgets the shards it found spent in the earlier window once it adopts a later one (found by the property test)', async () => {
    const { memory } = setup();
    const small = await sharded(memory, [[1, 50], [1, 50]]);
    // Callers whose limits imply the two shards from their first request.
    const key = (keyId: string): KeySubject => ({ ...small(keyId), limits: { perMinute: 60_000, perDay: 100 } });
    const behind = () => new ManualClock(T0 + 59_990);
    expect(await new RateLimiter(memory, behind(), () => 0).consume(key('key_a'))).toMatchObject({ consumption: { item: 'acct#acct_s' } });
    // Another container, a minute on, counts on shard 1.
    const ahead = await new RateLimiter(memory, new ManualClock(T0 + 60_000), (n) => n - 1).consume(key('key_b'));
    expect(ahead).toMatchObject({ consumption: { item: 'acct#acct_s#1', minuteWindow: MINUTE_OF_T0 + 1 } });
    // Shard 0 is spent in the old minute, shard 1 has rolled over: shard 0 has budget in the new one.
    const late = await new RateLimiter(memory, behind(), () => 0).consume(key('key_c'));
    expect(late).toMatchObject({ outcome: 'allowed', consumption: { item: 'acct#acct_s', minuteWindow: MINUTE_OF_T0 + 1 } });
  });

  it('sends a request a shard refuses for its write ceiling to another shard, and fails (503) only when all refuse', async () => {
    const { memory, clock } = setup();
    const key = await sharded(memory, [[50, 500], [50, 500]]);
    const store = withItemWriteCeiling(memory, new ItemWriteCeiling(clock, 1));
    const limiter = new RateLimiter(store, clock, () => 0);
    expect(await limiter.consume(key('key_a'))).toMatchObject({ consumption: { item: 'acct#acct_s' } });
    expect(await limiter.consume(key('key_a'))).toMatchObject({ consumption: { item: 'acct#acct_s#1' } });
    await expect(limiter.consume(key('key_a'))).rejects.toMatchObject({ name: THROTTLING_ERROR });
  });
});
