import type { RateLimits } from '../../contracts/plans.js';
import type { Remaining } from './limiter-state.js';
import type { Windows } from './windows.js';

/** How long a container trusts a spent shard (a refund can reopen it) and a ban (an operator can lift it). */
export const EXHAUSTION_MEMORY_MS = 1_000;
export const BAN_MEMORY_MS = 5_000;
const MAX_ENTRIES = 10_000;

/** A shard that refused a request for its budget, in the windows it was asked about. */
export interface Exhaustion {
  readonly windows: Windows;
  readonly remaining: Remaining;
  readonly limits: RateLimits;
  readonly untilMs: number;
}

/** What one container learned from its own calls; it only refuses or picks a shard (docs/contributors/limiter.md). */
export class ContainerKnowledge {
  private readonly shardCounts = new Map<string, number>();
  private readonly exhausted = new Map<string, Exhaustion>();
  private readonly bans = new Map<string, { untilMs: number; recheckAtMs: number }>();

  /** The shard count the account's items stated last (the authorizer's limits may be older). */
  shardCount(accountId: string): number | undefined {
    return this.shardCounts.get(accountId);
  }

  learnShardCount(accountId: string, shards: number): void {
    bounded(this.shardCounts).set(accountId, shards);
  }

  markExhausted(shard: string, exhaustion: Exhaustion): void {
    bounded(this.exhausted).set(shard, exhaustion);
  }

  /** The shard's exhaustion, while it applies to these windows and is recent enough. */
  exhaustion(shard: string, windows: Windows, nowMs: number): Exhaustion | undefined {
    const known = this.exhausted.get(shard);
    if (!known || known.untilMs <= nowMs) return undefined;
    const sameMinute = known.windows.minute === windows.minute;
    const sameDay = known.windows.day === windows.day;
    // A spent day stays spent for the whole day; a spent minute only for its minute.
    if (sameDay && known.remaining.day === 0) return known;
    return sameMinute && sameDay ? known : undefined;
  }

  rememberBan(keyId: string, untilMs: number, nowMs: number): void {
    bounded(this.bans).set(keyId, { untilMs, recheckAtMs: Math.min(untilMs, nowMs + BAN_MEMORY_MS) });
  }

  /** The end of the key's ban while this container may answer it from memory. */
  banUntil(keyId: string, nowMs: number): number | undefined {
    const known = this.bans.get(keyId);
    if (!known) return undefined;
    if (known.recheckAtMs > nowMs) return known.untilMs;
    this.bans.delete(keyId);
    return undefined;
  }
}

/** A map that forgets everything rather than grow without bound (a container meets many keys). */
function bounded<K, V>(map: Map<K, V>): Map<K, V> {
  if (map.size >= MAX_ENTRIES) map.clear();
  return map;
}
