import { AsyncLocalStorage } from 'node:async_hooks';
import * as fc from 'fast-check';
import { parseList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { rateLimitHeaders } from '../../../lambda/rate-limits/headers.js';
import type { LimiterStore } from '../../../lambda/rate-limits/limiter-store.js';
import { MemoryLimiterStore } from '../../support/memory-limiter-store.js';
import type { KeySubject, LimiterDecision } from '../../../lambda/rate-limits/limiter-decision.js';
import { RateLimiter } from '../../../lambda/rate-limits/rate-limiter.js';
import { shardId } from '../../../lambda/rate-limits/shards.js';

/**
 * Generated interleavings of several keys of one account, sent from several containers (limiters
 * with their own memory and slightly skewed clocks) over the same store, across minute and day
 * boundaries. Every store call is a step the scheduler orders, so requests overlap the way
 * concurrent Lambda invocations do. Checked: no window ever admits more than its limit; the
 * headers never state more than the account has left when the request was counted; every
 * refusal for the budget is true (each shard was spent); headers parse as RFC 9651 lists and
 * Retry-After is never earlier than the t they state.
 */

/** 23:59:58 UTC: every run crosses a minute and a day boundary. */
const START = Date.UTC(2026, 10, 21, 23, 59, 58);
const ACCOUNT = 'acct_p';

interface Commit {
  minuteTotal: number;
  dayTotal: number;
}

const layouts = fc.oneof(
  // One item (every plan up to 30,000/min): today's single-item design.
  fc.record({ slices: fc.constant([[5, 12]] as Array<[number, number]>) }),
  // A budget split across shards, the way an Enterprise account's is.
  fc.record({ slices: fc.constant([[3, 6], [2, 5], [2, 4]] as Array<[number, number]>) }),
  fc.record({ slices: fc.constant([[1, 9], [1, 1]] as Array<[number, number]>) }),
);

const request = fc.record({
  container: fc.integer({ min: 0, max: 2 }),
  key: fc.constantFrom('key_a', 'key_b', 'key_c'),
});
/** Batches of concurrent requests, each batch after a pause (ms) of the shared time. */
const batch = fc.record({
  pauseMs: fc.integer({ min: 0, max: 1_500 }),
  requests: fc.array(request, { minLength: 1, maxLength: 6 }),
});
const batches = fc.array(batch, { minLength: 1, maxLength: 12 });
const skew = fc.integer({ min: -250, max: 250 });
const skews = fc.tuple(skew, skew, skew);

describe('RateLimiter under concurrent keys, containers and window boundaries (property)', () => {
  it('never over-admits, never overstates what remains, and refuses only a spent budget', async () => {
    await fc.assert(
      fc.asyncProperty(layouts, batches, skews, fc.scheduler(), async (layout, plan, skew, s) => {
        const memory = new MemoryLimiterStore();
        const shards = layout.slices.length;
        const account = {
          perMinute: layout.slices.reduce((sum, [m]) => sum + m, 0),
          perDay: layout.slices.reduce((sum, [, d]) => sum + d, 0),
        };
        for (const [i, [perMinute, perDay]] of layout.slices.entries()) {
          await memory.provision(shardId(ACCOUNT, i), { slice: { perMinute, perDay }, account, shards });
        }
        // The highest count each shard's counter ever reached: a counter is removed when its shard
        // rolls over, and counts only grow within a window here (no refunds).
        const highest = new Map<string, number>();
        const peak = (i: number, counter: string) => highest.get(`${i}/${counter}`) ?? 0;
        const totals = (minute: number, day: number): Commit => {
          let minuteTotal = 0;
          let dayTotal = 0;
          for (let i = 0; i < shards; i++) {
            minuteTotal += peak(i, `m${minute}`);
            dayTotal += peak(i, `d${day}`);
          }
          return { minuteTotal, dayTotal };
        };
        // Each store call waits for the scheduler; a counted write notes the account's totals as it committed.
        const commits = new AsyncLocalStorage<{ commit?: Commit }>();
        const scheduled = new Proxy(memory, {
          get(target, property, receiver) {
            const value = Reflect.get(target, property, receiver) as unknown;
            if (typeof value !== 'function') return value;
            return async (...args: unknown[]) => {
              await s.schedule(Promise.resolve(), String(property));
              const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
              const counted = result as { counted?: boolean };
              if (property === 'tryConsume' && counted.counted) {
                const index = [...Array(shards).keys()].find((i) => shardId(ACCOUNT, i) === args[0]) as number;
                for (const [name, count] of Object.entries(target.raw(args[0] as string) ?? {})) {
                  if (/^[md]\d+$/.test(name)) highest.set(`${index}/${name}`, Math.max(peak(index, name), Number(count)));
                }
                const c = args[1] as { minuteWindow: number; dayWindow: number };
                const context = commits.getStore();
                if (context) context.commit = totals(c.minuteWindow, c.dayWindow);
              }
              return result;
            };
          },
        }) as LimiterStore;

        const now = { ms: START };
        const clocks = skew.map((offset) => ({ now: () => now.ms + offset }));
        const containers = clocks.map((clock) => new RateLimiter(scheduled, clock));
        const subject = (keyId: string): KeySubject => ({
          kind: 'key',
          keyId,
          accountId: ACCOUNT,
          limits: account,
          ban: { threshold: 2, durationSeconds: 60 },
        });
        const seen: Array<{ decision: LimiterDecision; commit?: Commit }> = [];
        for (const batch of plan) {
          now.ms += batch.pauseMs;
          const running = batch.requests.map((r) =>
            commits.run({}, async () => {
              const decision = await (containers[r.container] as RateLimiter).consume(subject(r.key));
              seen.push({ decision, ...(commits.getStore()?.commit ? { commit: commits.getStore()?.commit } : {}) });
            }),
          );
          await s.waitFor(Promise.all(running));
        }

        const admitted = new Map<string, number>();
        for (const { decision, commit } of seen) {
          const headers = rateLimitHeaders(decision.state);
          parseList(headers['RateLimit-Policy'] as string);
          type Item = [string, Map<string, number>];
          const [, params] = parseList(headers.RateLimit as string)[0] as unknown as Item;
          if (decision.outcome === 'allowed') {
            const c = decision.consumption;
            if (!c || !commit) throw new Error('an allowed request has a consumption and a commit');
            for (const w of [`m${c.minuteWindow}`, `d${c.dayWindow}`]) admitted.set(w, (admitted.get(w) ?? 0) + 1);
            // Never more than the account had left when this request was counted.
            const { minute, day } = decision.state;
            expect(minute.limit - minute.used).toBeLessThanOrEqual(account.perMinute - commit.minuteTotal);
            expect(day.limit - day.used).toBeLessThanOrEqual(account.perDay - commit.dayTotal);
            expect(Number(headers['X-RateLimit-Remaining'])).toBeLessThanOrEqual(
              Math.min(account.perMinute - commit.minuteTotal, account.perDay - commit.dayTotal),
            );
          } else {
            expect(headers['X-RateLimit-Remaining']).toBe('0');
            if (decision.outcome === 'rate_limited' || decision.outcome === 'banned') {
              expect(decision.retryAfterSeconds).toBeGreaterThanOrEqual(params?.get('t') ?? 0);
            }
            if (decision.outcome === 'rate_limited') {
              // A true refusal: every shard had spent its minute or its day in the refused windows.
              const minute = decision.state.minute.resetMs / 60_000 - 1;
              const day = decision.state.day.resetMs / 86_400_000 - 1;
              for (const [i, [perMinute, perDay]] of layout.slices.entries()) {
                const spent = peak(i, `m${minute}`) >= perMinute || peak(i, `d${day}`) >= perDay;
                expect(spent, `shard ${i} spent in minute ${minute} / day ${day}`).toBe(true);
              }
            }
          }
        }
        // No window ever admits more than its limit, whichever container's clock counted there.
        for (const [window, count] of admitted) {
          expect(count, window).toBeLessThanOrEqual(window.startsWith('m') ? account.perMinute : account.perDay);
        }
        for (let i = 0; i < shards; i++) {
          for (const [name, value] of Object.entries(memory.raw(shardId(ACCOUNT, i)) ?? {})) {
            if (/^m\d+$/.test(name)) expect(Number(value)).toBeLessThanOrEqual(layout.slices[i]?.[0] ?? 0);
            if (/^d\d+$/.test(name)) expect(Number(value)).toBeLessThanOrEqual(layout.slices[i]?.[1] ?? 0);
          }
        }
      }),
      { numRuns: 120 },
    );
  }, 60_000);
});
