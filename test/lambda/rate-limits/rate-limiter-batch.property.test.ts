import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LimiterStore } from '../../../lambda/rate-limits/limiter-store.js';
import { MemoryLimiterStore } from '../../support/memory-limiter-store.js';
import type { KeySubject, LimiterDecision } from '../../../lambda/rate-limits/limiter-decision.js';
import { RateLimiter } from '../../../lambda/rate-limits/rate-limiter.js';
import { shardId } from '../../../lambda/rate-limits/shards.js';

/**
 * Batches of N (1 to 7) and single requests of several keys, from several containers with skewed
 * clocks over one store, across minute and day boundaries, every store call ordered by the
 * scheduler; some accepted batches are refunded (a 503). Checked: no shard's counter ever exceeds
 * its slice and no window admits more than the account's limit (never over-admits, at any
 * interleaving), and every counter left holds exactly what was admitted there less what was refunded.
 */

/** 23:59:58 UTC: every run crosses a minute and a day boundary. */
const START = Date.UTC(2026, 10, 21, 23, 59, 58);
const ACCOUNT = 'acct_p';

const layouts = fc.constantFrom(
  [[9, 20]] as Array<[number, number]>,
  [[6, 12], [5, 9], [4, 8]] as Array<[number, number]>,
  [[3, 14], [7, 7]] as Array<[number, number]>,
);
const request = fc.record({
  container: fc.integer({ min: 0, max: 2 }),
  key: fc.constantFrom('key_a', 'key_b'),
  units: fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 7 })),
  refund: fc.boolean(),
});
const round = fc.record({
  pauseMs: fc.integer({ min: 0, max: 1_500 }),
  requests: fc.array(request, { minLength: 1, maxLength: 6 }),
});
const skew = fc.integer({ min: -250, max: 250 });

describe('RateLimiter with batches under concurrency (property)', () => {
  it('never over-admits, and refunds give back exactly the batch', async () => {
    await fc.assert(
      fc.asyncProperty(
        layouts,
        fc.array(round, { minLength: 1, maxLength: 10 }),
        fc.tuple(skew, skew, skew),
        fc.scheduler(),
        async (slices, rounds, skews, s) => {
          const memory = new MemoryLimiterStore();
          const shards = slices.length;
          const account = {
            perMinute: slices.reduce((sum, [m]) => sum + m, 0),
            perDay: slices.reduce((sum, [, d]) => sum + d, 0),
          };
          for (const [i, [perMinute, perDay]] of slices.entries()) {
            await memory.provision(shardId(ACCOUNT, i), { slice: { perMinute, perDay }, account, shards });
          }
          // Every counter write is checked against its shard's slice the moment it commits.
          const check = (id: string) => {
            const index = [...Array(shards).keys()].find((i) => shardId(ACCOUNT, i) === id) as number;
            const [perMinute, perDay] = slices[index] as [number, number];
            for (const [name, value] of Object.entries(memory.raw(id) ?? {})) {
              if (/^m\d+$/.test(name)) expect(Number(value), `${id} ${name}`).toBeLessThanOrEqual(perMinute);
              if (/^d\d+$/.test(name)) expect(Number(value), `${id} ${name}`).toBeLessThanOrEqual(perDay);
            }
          };
          const scheduled = new Proxy(memory, {
            get(target, property, receiver) {
              const value = Reflect.get(target, property, receiver) as unknown;
              if (typeof value !== 'function') return value;
              return async (...args: unknown[]) => {
                await s.schedule(Promise.resolve(), String(property));
                const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
                if (typeof args[0] === 'string' && args[0].startsWith('acct#')) check(args[0]);
                return result;
              };
            },
          }) as LimiterStore;

          const now = { ms: START };
          const containers = skews.map((offset) => new RateLimiter(scheduled, { now: () => now.ms + offset }));
          const subject = (keyId: string): KeySubject => ({
            kind: 'key',
            keyId,
            accountId: ACCOUNT,
            limits: account,
            ban: { threshold: 1_000, durationSeconds: 60 },
          });
          /** Net units per shard and counter: admitted less refunded. */
          const net = new Map<string, number>();
          const admitted = new Map<string, number>();
          const addNet = (name: string, units: number) => net.set(name, (net.get(name) ?? 0) + units);
          for (const r of rounds) {
            now.ms += r.pauseMs;
            await s.waitFor(
              Promise.all(
                r.requests.map(async (q) => {
                  const limiter = containers[q.container] as RateLimiter;
                  const decision: LimiterDecision = await limiter.consume(subject(q.key), q.units);
                  if (decision.outcome !== 'allowed' || !decision.consumption) return;
                  const c = decision.consumption;
                  expect(c.units ?? 1).toBe(q.units);
                  for (const w of [`m${c.minuteWindow}`, `d${c.dayWindow}`]) {
                    admitted.set(w, (admitted.get(w) ?? 0) + q.units);
                  }
                  addNet(`${c.item} m${c.minuteWindow}`, q.units);
                  addNet(`${c.item} d${c.dayWindow}`, q.units);
                  if (q.refund) {
                    await limiter.refund(c);
                    // The units come back in the day, and in the minute unless its counter rolled over meanwhile (then gone).
                    const minuteLeft = memory.raw(c.item)?.[`m${c.minuteWindow}`] !== undefined;
                    const back: Array<[string, number]> = [[`d${c.dayWindow}`, q.units]];
                    if (minuteLeft) back.push([`m${c.minuteWindow}`, q.units]);
                    for (const [w, units] of back) {
                      admitted.set(w, (admitted.get(w) ?? 0) - units);
                      addNet(`${c.item} ${w}`, -units);
                    }
                  }
                }),
              ),
            );
          }
          for (const [window, count] of admitted) {
            expect(count, `admitted less refunded in ${window}`).toBeLessThanOrEqual(window.startsWith('m') ? account.perMinute : account.perDay);
          }
          for (let i = 0; i < shards; i++) {
            const id = shardId(ACCOUNT, i);
            for (const [name, value] of Object.entries(memory.raw(id) ?? {})) {
              if (/^[md]\d+$/.test(name)) expect(Number(value), `${id} ${name}`).toBe(net.get(`${id} ${name}`) ?? 0);
            }
          }
        },
      ),
      { numRuns: 150, seed: 1818 },
    );
  }, 60_000);
});
