import type { RateLimits } from '../../contracts/plans.js';

/**
 * How an account's budget is split across limiter items (docs/contributors/limiter.md, "The limiter: one budget per account, exact at any scale").
 *
 * One DynamoDB item takes at most 1,000 write units per second (one partition's ceiling, refused
 * conditional writes included). An account whose per-minute limit could drive its item near that
 * ceiling gets S items, "shards", each holding a fixed slice of the minute and day budgets; a
 * request counts on one shard only. A shard is sized for SHARD_MINUTE_CAPACITY accepted requests
 * a minute (500/s on average, half the ceiling: room for refused writes, strikes, retries and
 * bursts within the minute). Every plan up to 30,000/min is one shard: today's single item.
 */
export const SHARD_MINUTE_CAPACITY = 30_000;

/**
 * At most this many shards (32,000 writes/s in all, far above any agreed limit so far): a limit
 * beyond 32 × 30,000 a minute gets bigger slices rather than more items to provision and read.
 */
export const MAX_SHARDS = 32;

/** The number of shards of an account with these limits. */
export function shardCount(limits: RateLimits, capacity = SHARD_MINUTE_CAPACITY): number {
  return Math.min(MAX_SHARDS, Math.max(1, Math.ceil(limits.perMinute / capacity)));
}

/** The limits a shard admits: the slices sum to the account's limits exactly (the first shards take the remainders). */
export function sliceOf(limits: RateLimits, shards: number, index: number): RateLimits {
  const share = (total: number) => Math.floor(total / shards) + (index < total % shards ? 1 : 0);
  return { perMinute: share(limits.perMinute), perDay: share(limits.perDay) };
}

/** Shard 0 is `acct#<accountId>`, the only item of a single-shard account; shard i > 0 is `acct#<accountId>#<i>`. */
export const shardId = (accountId: string, index: number) =>
  index === 0 ? `acct#${accountId}` : `acct#${accountId}#${index}`;

/** The ids of shards 0 … count−1. */
export const shardIds = (accountId: string, count: number) =>
  Array.from({ length: count }, (_, i) => shardId(accountId, i));

/** The item of a key's strikes (429s counted towards a ban). */
export const keyItemId = (keyId: string) => `key#${keyId}`;

/** The item of an anonymous caller's budget. */
export const anonymousItemId = (ip: string) => `ip#${ip}`;
