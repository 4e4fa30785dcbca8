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

/** One network round trip to DynamoDB, in simulated ms (uniform). */
const RTT_MS = { min: 3, max: 8 } as const;
/** What the handler does after the limiter for an accepted request (record write and enqueue, side by side). */
const AFTER_LIMITER_MS = 8;
const MAX_CONTAINERS = 400;
const KEYS = 8;
const ACCOUNT = 'acct_scale';

/**
 * One account sending from many containers under the per-item write ceiling: bench/README.md,
 * "limiter-scale". `demandPerSecond` requests arrive a simulated second (open loop), spread over the
 * account's keys; `singleItem` is today's design, the whole budget on one item.
 */
async function simulateAccount(limits: RateLimits, demandPerSecond: number, minutes: number, singleItem: boolean) {
  const random = seededRandom(13);
  const start = Date.UTC(2026, 10, 21, 10, 0, 0);
  const end = start + minutes * 60_000;
  const time = new VirtualTime(start);
  const memory = new MemoryLimiterStore();
  const ceiling = new ItemWriteCeiling(time);
  if (singleItem) {
    await memory.provision(shardId(ACCOUNT, 0), { slice: limits, account: limits, shards: 1 });
  } else {
    await new AccountLimits(memory).provision(ACCOUNT, limits, start);
  }
  const shards = singleItem ? 1 : shardCount(limits);

  const between = (min: number, max: number) => min + random() * (max - min);
  // Each attempt is a round trip: the item's ceiling applies when the request reaches the table.
  const network = around(withItemWriteCeiling(memory, ceiling), async (call) => {
    await time.sleep(between(RTT_MS.min, RTT_MS.max) / 2);
    try {
      return await call();
    } finally {
      await time.sleep(between(RTT_MS.min, RTT_MS.max) / 2);
    }
  });

  // The caller's limits as the authorizer holds them; for today's design, limits of one item.
  const callerLimits = singleItem ? { perMinute: 30_000, perDay: limits.perDay } : limits;
  const subject = (i: number): KeySubject => ({
    kind: 'key',
    keyId: `key_${i % KEYS}`,
    accountId: ACCOUNT,
    limits: callerLimits,
    // Callers here never stop at their 429s: bans would only hide the limiter's figures.
    ban: { threshold: 1_000_000_000, durationSeconds: 1 },
  });

  type Container = { limiter: RateLimiter; calls: number };
  const idle: Container[] = [];
  const waiting: number[] = [];
  let containers = 0;
  const newContainer = (): Container => {
    const skew = between(-30, 30);
    const container = { calls: 0 } as Container;
    // Each container has its own SDK client, so its own retry quota.
    const client = withClientRetries(network, (ms) => time.sleep(ms), random);
    const counted = around(client, (call) => {
      container.calls++;
      return call();
    }) as LimiterStore;
    const clock = { now: () => time.now() + skew };
    container.limiter = new RateLimiter(counted, clock, (n) => Math.floor(random() * n));
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

  const interval = 1000 / demandPerSecond;
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

  const minuteIndexes = Array.from({ length: minutes }, (_, m) => Math.floor(start / 60_000) + m);
  const windows = minuteIndexes.map((m) => ({ accepted: accepted.get(m) ?? 0, arrived: arrived.get(m) ?? 0 }));
  // Seconds of each minute before its first 429 (while the budget lasted), whole seconds only.
  const budgetSeconds = minuteIndexes.flatMap((m) => {
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
    design: singleItem ? 'single item' : `${shards} shards`,
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

/** `target` with each of its method calls made through `wrap`. */
function around<T extends object>(target: T, wrap: (call: () => unknown) => unknown): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => wrap(() => (value as (...a: unknown[]) => unknown).apply(object, args));
    },
  });
}

/** The sharded design beside today's single item (bench/README.md, "limiter-scale"). */
export async function limiterScale(options: BenchOptions): Promise<Figure> {
  // Demand 20 % above the limit, so every minute runs out.
  const limits = { perMinute: options.smoke ? 60_000 : 150_000, perDay: 100_000_000 };
  const demandPerSecond = options.smoke ? 1_200 : 3_000;
  const sharded = await simulateAccount(limits, demandPerSecond, options.smoke ? 1 : 3, false);
  const single = await simulateAccount(limits, demandPerSecond, options.smoke ? 1 : 3, true);
  const pass = sharded.acceptedPerSecond >= 2_000 && sharded.overAdmission === 0 && sharded.underAdmissionPercent <= 1;
  const describe = (r: typeof sharded) =>
    `${r.design}: ${r.acceptedPerSecond} accepted/s while the budget lasts, ` +
    `${r.windows.map((w) => w.accepted).join(' / ')} accepted per minute of ${limits.perMinute}, ` +
    `over-admission ${r.overAdmission}, under-admission ${r.underAdmissionPercent} %, ${r.failed} failed`;
  return {
    figure: `limiter-scale (one account, ${demandPerSecond} requests/s from many containers, 1,000 writes/s per item)`,
    value: `${describe(sharded)}; baseline ${describe(single)}`,
    goal: '≥ 2,000 accepted/s, 0 over-admission, ≤ 1 % under-admission',
    pass,
    details: { limits, demandPerSecond: demandPerSecond, sharded, singleItem: single },
  };
}
