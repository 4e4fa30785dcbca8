import { AccountLimits } from '../lambda/rate-limits/account-limits.js';
import type { LimiterStore } from '../lambda/rate-limits/limiter-store.js';
import { MemoryLimiterStore } from '../test/support/memory-limiter-store.js';
import type { KeySubject, LimiterDecision } from '../lambda/rate-limits/limiter-decision.js';
import { RateLimiter } from '../lambda/rate-limits/rate-limiter.js';
import { shardCount, shardId } from '../lambda/rate-limits/shards.js';
import type { RateLimits } from '../lib/config/index.js';
import { ItemWriteCeiling, withClientRetries, withItemWriteCeiling } from '../local/item-write-ceiling.js';
import type { BenchOptions, Figure } from './lib.js';
import { seededRandom, VirtualTime } from './virtual-time.js';

/** One simulated account under load, and what it got. */
export interface ScaleRun {
  readonly design: string;
  readonly shards: number;
  /** Accepted requests per full minute window, and what arrived in it. */
  readonly windows: ReadonlyArray<{ readonly accepted: number; readonly arrived: number }>;
  /** Accepted per simulated second while the minute's budget lasted (mean over those seconds). */
  readonly acceptedPerSecond: number;
  /** Accepted beyond the limit, summed over the minute windows and the day. */
  readonly overAdmission: number;
  /** The largest shortfall of a full minute window whose demand exceeded the limit, in % of the limit. */
  readonly underAdmissionPercent: number;
  /** Requests that failed (throttled past the client's retries on every shard they tried). */
  readonly failed: number;
  readonly throttledWrites: number;
  /** Store calls of each accepted request: how many made one, and the most any made. */
  readonly callsPerAccepted: { readonly one: number; readonly more: number; readonly max: number };
  readonly containers: number;
}

export interface ScaleOptions {
  readonly limits: RateLimits;
  /** Requests arriving per simulated second (open loop), spread over the account's keys. */
  readonly demandPerSecond: number;
  readonly minutes: number;
  /** Today's design: the whole budget on one item. */
  readonly singleItem: boolean;
  readonly writesPerSecondPerItem?: number;
  readonly seed?: number;
}

/** One network round trip to DynamoDB, in simulated ms (uniform). */
const RTT_MS = { min: 3, max: 8 } as const;
/** What the handler does after the limiter for an accepted request (record write and enqueue, side by side). */
const AFTER_LIMITER_MS = 8;
const MAX_CONTAINERS = 400;
const KEYS = 8;
const ACCOUNT = 'acct_scale';

/**
 * Simulates one account sending from many Lambda containers (each a RateLimiter with its own
 * memory and a clock up to 30 ms off) against the in-memory store behind DynamoDB's per-item write
 * ceiling (local/item-write-ceiling.ts: 1,000 writes/s per item, refused writes included) and the
 * SDK's standard retries (one client, so one retry quota, per container), with simulated round trips. Requests arrive in an open loop at
 * `demandPerSecond`; an idle container takes each, as Lambda does, up to MAX_CONTAINERS.
 */
export async function simulateAccount(options: ScaleOptions): Promise<ScaleRun> {
  const random = seededRandom(options.seed ?? 13);
  const start = Date.UTC(2026, 10, 21, 10, 0, 0);
  const end = start + options.minutes * 60_000;
  const time = new VirtualTime(start);
  const memory = new MemoryLimiterStore();
  const ceiling = new ItemWriteCeiling(time, options.writesPerSecondPerItem);
  const { limits } = options;
  if (options.singleItem) {
    await memory.provision(shardId(ACCOUNT, 0), { slice: limits, account: limits, shards: 1 });
  } else {
    await new AccountLimits(memory).provision(ACCOUNT, limits, start);
  }
  const shards = options.singleItem ? 1 : shardCount(limits);

  const between = (min: number, max: number) => min + random() * (max - min);
  // Each attempt is a round trip: the item's ceiling applies when the request reaches the table.
  const network = new Proxy(withItemWriteCeiling(memory, ceiling), {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await time.sleep(between(RTT_MS.min, RTT_MS.max) / 2);
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          await time.sleep(between(RTT_MS.min, RTT_MS.max) / 2);
        }
      };
    },
  });

  // The caller's limits as the authorizer holds them; for today's design, limits of one item.
  const callerLimits = options.singleItem ? { perMinute: 30_000, perDay: limits.perDay } : limits;
  const subject = (i: number): KeySubject => ({
    kind: 'key',
    keyId: `key_${i % KEYS}`,
    accountId: ACCOUNT,
    limits: callerLimits,
    // Callers here never stop at their 429s: bans would only hide the limiter's figures.
    ban: { threshold: 1_000_000_000, durationSeconds: 1 },
  });

  interface Container {
    readonly limiter: RateLimiter;
    calls: number;
  }
  const idle: Container[] = [];
  const waiting: number[] = [];
  let containers = 0;
  const newContainer = (): Container => {
    const skew = between(-30, 30);
    const container: Container = { limiter: undefined as unknown as RateLimiter, calls: 0 };
    // Each container has its own SDK client, so its own retry quota.
    const client = withClientRetries(network, (ms) => time.sleep(ms), random);
    const counted = new Proxy(client, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          container.calls++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as LimiterStore;
    (container as { limiter: RateLimiter }).limiter = new RateLimiter(counted, { now: () => time.now() + skew }, (n) =>
      Math.floor(random() * n));
    containers++;
    return container;
  };

  const accepted = new Map<number, number>();
  const arrived = new Map<number, number>();
  const acceptedBySecond = new Map<number, number>();
  const firstRefusal = new Map<number, number>();
  let failed = 0;
  let dayAccepted = 0;
  const calls = { one: 0, more: 0, max: 0 };
  const bump = (map: Map<number, number>, k: number) => map.set(k, (map.get(k) ?? 0) + 1);

  const handle = async (container: Container, i: number): Promise<void> => {
    container.calls = 0;
    let decision: LimiterDecision | undefined;
    try {
      decision = await container.limiter.consume(subject(i));
    } catch {
      failed++;
    }
    const second = Math.floor(time.now() / 1000);
    if (decision?.outcome === 'allowed' && decision.consumption) {
      bump(accepted, decision.consumption.minuteWindow);
      bump(acceptedBySecond, second);
      dayAccepted++;
      if (container.calls === 1) calls.one++;
      else calls.more++;
      calls.max = Math.max(calls.max, container.calls);
      await time.sleep(AFTER_LIMITER_MS);
    } else if (decision?.outcome === 'rate_limited') {
      const minute = Math.floor(time.now() / 60_000);
      if (!firstRefusal.has(minute)) firstRefusal.set(minute, time.now());
    }
  };
  const run = async (container: Container, i: number): Promise<void> => {
    await handle(container, i);
    for (let next = waiting.shift(); next !== undefined; next = waiting.shift()) await handle(container, next);
    idle.push(container);
  };

  const interval = 1000 / options.demandPerSecond;
  const arrivals = (async () => {
    for (let i = 0; time.now() + interval < end; i++) {
      await time.sleep(interval * between(0.5, 1.5));
      bump(arrived, Math.floor(time.now() / 60_000));
      const container = idle.pop() ?? (containers < MAX_CONTAINERS ? newContainer() : undefined);
      if (container) void run(container, i);
      else waiting.push(i);
    }
  })();
  await time.runUntil(end + 10_000);
  await arrivals;

  const minutes = Array.from({ length: options.minutes }, (_, m) => Math.floor(start / 60_000) + m);
  const windows = minutes.map((m) => ({ accepted: accepted.get(m) ?? 0, arrived: arrived.get(m) ?? 0 }));
  // Seconds of each minute before its first 429 (while the budget lasted), whole seconds only.
  const budgetSeconds = minutes.flatMap((m) => {
    const until = Math.floor((firstRefusal.get(m) ?? (m + 1) * 60_000) / 1000);
    return Array.from({ length: Math.max(0, until - m * 60) - 1 }, (_, s) => m * 60 + 1 + s);
  });
  const acceptedInBudget = budgetSeconds.reduce((sum, s) => sum + (acceptedBySecond.get(s) ?? 0), 0);
  const acceptedPerSecond = acceptedInBudget / Math.max(1, budgetSeconds.length);
  const overMinutes = windows.reduce((sum, w) => sum + Math.max(0, w.accepted - limits.perMinute), 0);
  const overAdmission = overMinutes + Math.max(0, dayAccepted - limits.perDay);
  const shortfalls = windows
    .filter((w) => w.arrived > limits.perMinute)
    .map((w) => (limits.perMinute - w.accepted) / limits.perMinute);
  return {
    design: options.singleItem ? 'single item' : `${shards} shards`,
    shards,
    windows,
    acceptedPerSecond: Math.round(acceptedPerSecond),
    overAdmission,
    underAdmissionPercent: Math.round(Math.max(0, ...shortfalls) * 10_000) / 100,
    failed,
    throttledWrites: ceiling.throttled,
    callsPerAccepted: calls,
    containers,
  };
}

/**
 * `limiter-scale`: the accepted rate one account sustains, and its exactness, under the per-item
 * write ceiling; the sharded design beside today's single item. See bench/README.md.
 */
export async function limiterScale(options: BenchOptions): Promise<Figure> {
  // 150,000/min is 2,500/s on average: 5 shards. Demand 20 % above it, so every minute runs out.
  // Smoke: 60,000/min (2 shards), 1,200/s, one minute.
  const limits = { perMinute: options.smoke ? 60_000 : 150_000, perDay: 100_000_000 };
  const base = { limits, demandPerSecond: options.smoke ? 1_200 : 3_000, minutes: options.smoke ? 1 : 3 };
  const sharded = await simulateAccount({ ...base, singleItem: false });
  const single = await simulateAccount({ ...base, singleItem: true });
  const pass = sharded.acceptedPerSecond >= 2_000 && sharded.overAdmission === 0 && sharded.underAdmissionPercent <= 1;
  const describe = (r: ScaleRun) =>
    `${r.design}: ${r.acceptedPerSecond} accepted/s while the budget lasts, ` +
    `${r.windows.map((w) => w.accepted).join(' / ')} accepted per minute of ${limits.perMinute}, ` +
    `over-admission ${r.overAdmission}, under-admission ${r.underAdmissionPercent} %, ${r.failed} failed`;
  return {
    figure: `limiter-scale (one account, ${base.demandPerSecond} requests/s from many containers, 1,000 writes/s per item)`,
    value: `${describe(sharded)}; baseline ${describe(single)}`,
    goal: '≥ 2,000 accepted/s, 0 over-admission, ≤ 1 % under-admission',
    pass,
    details: { limits, demandPerSecond: base.demandPerSecond, sharded, singleItem: single },
  };
}
