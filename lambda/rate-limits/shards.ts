import type { RateLimits } from '../../contracts/plans.js';

/** An account's budget split across limiter items, "shards": docs/contributors/limiter.md. */
const SHARD_MINUTE_CAPACITY = 30_000;
export const MAX_SHARDS = 32;

export function shardCount(limits: RateLimits): number {
  return Math.min(MAX_SHARDS, Math.max(1, Math.ceil(limits.perMinute / SHARD_MINUTE_CAPACITY)));
}

/** The limits a shard admits: the slices sum to the account's limits exactly (the first shards take the remainders). */
export function sliceOf(limits: RateLimits, shards: number, index: number): RateLimits {
  const share = (total: number) => Math.floor(total / shards) + (index < total % shards ? 1 : 0);
  return { perMinute: share(limits.perMinute), perDay: share(limits.perDay) };
}

/** Shard 0 is `acct#<accountId>`, the only item of a single-shard account; shard i > 0 is `acct#<accountId>#<i>`. */
export const shardId = (accountId: string, index: number) =>
  index === 0 ? `acct#${accountId}` : `acct#${accountId}#${index}`;

export const shardIds = (accountId: string, count: number) =>
  Array.from({ length: count }, (_, i) => shardId(accountId, i));

/** The item of a key's strikes, ban and revocation. */
export const keyItemId = (keyId: string) => `key#${keyId}`;

export const anonymousItemId = (ip: string) => `ip#${ip}`;
