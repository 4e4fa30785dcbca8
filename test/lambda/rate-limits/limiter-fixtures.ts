import type { LimiterStore } from '../../../lambda/rate-limits/limiter-store.js';
import { MemoryLimiterStore } from '../../support/memory-limiter-store.js';
import { AccountLimits } from '../../../lambda/rate-limits/account-limits.js';
import type { AnonymousSubject, KeySubject, LimiterDecision } from '../../../lambda/rate-limits/limiter-decision.js';
import { RateLimiter } from '../../../lambda/rate-limits/rate-limiter.js';
import { ManualClock } from '../../support/clock.js';
import type { BanPolicy, RateLimits } from '../../../lib/config/index.js';

/** 2026-11-21 10:15:00.000 UTC: the start of a minute. */
export const T0 = Date.UTC(2026, 10, 21, 10, 15, 0);
export const MINUTE_OF_T0 = T0 / 60_000;
export const DAY_OF_T0 = Math.floor(T0 / 86_400_000);
/** Midnight UTC after T0: the end of T0's day window. */
export const DAY_END = Date.UTC(2026, 10, 22);
export const BAN: BanPolicy = { threshold: 3, durationSeconds: 900 };

/** Every call a limiter makes to its store, by method name, in order. */
export function countingStore(store: LimiterStore): { store: LimiterStore; calls: string[] } {
  const calls: string[] = [];
  const counting = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: counting, calls };
}

/**
 * A memory store, a clock, the account service's side (AccountLimits) and "containers": limiters
 * sharing the store, each with its own memory, as Lambda functions share the table. The pick
 * function takes the first open shard, so tests know which shard a request lands on.
 */
export function setup(startMs = T0) {
  const memory = new MemoryLimiterStore();
  const { store, calls } = countingStore(memory);
  const clock = new ManualClock(startMs);
  const admin = new AccountLimits(memory);
  const container = () => new RateLimiter(store, clock, () => 0);
  const limiter = container();
  /** A key of an account provisioned with these limits, as the account service does it. */
  async function account(limits: RateLimits, accountId = 'acct_1') {
    await admin.provision(accountId, limits, clock.now());
    return (keyId: string, ban: BanPolicy = BAN): KeySubject => ({ kind: 'key', keyId, accountId, limits, ban });
  }
  const anonymous = (limits: RateLimits, ip = '203.0.113.7'): AnonymousSubject => ({ kind: 'anonymous', id: `ip#${ip}`, limits });
  return { memory, store, calls, clock, admin, limiter, container, account, anonymous };
}

export async function consumeTimes(
  limiter: RateLimiter,
  subject: KeySubject | AnonymousSubject,
  n: number,
): Promise<LimiterDecision[]> {
  const out: LimiterDecision[] = [];
  for (let i = 0; i < n; i++) out.push(await limiter.consume(subject));
  return out;
}

export const outcomes = (decisions: readonly LimiterDecision[]) => decisions.map((d) => d.outcome);
/** What the headers would say remains: the limit less `used`. */
export const remaining = (d: LimiterDecision) => ({
  minute: d.state.minute.limit - d.state.minute.used,
  day: d.state.day.limit - d.state.day.used,
});
