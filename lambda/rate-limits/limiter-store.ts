import type { RateLimits } from '../../contracts/plans.js';
import type { KeyMarker, LimiterItem } from './limiter-item.js';

export interface ConsumeCondition {
  readonly minuteWindow: number;
  readonly dayWindow: number;
  /** Limits to compare with, or 'stored' for the item's own slice (account shards). */
  readonly limits: RateLimits | 'stored';
  readonly nowMs: number;
  /** The requesting key (account shards): refused while it is banned or revoked there; its own counters are kept too. */
  readonly keyId?: string;
  /** TTL in epoch seconds (anonymous items); shards never expire. */
  readonly expiresAtSeconds?: number;
  /** A batch of `units` requests in one write (shards only): "Batches" in docs/contributors/limiter.md. */
  readonly batch?: { readonly units: number; readonly slice: RateLimits };
}

/** A counted request: the item the write left behind, and `tidy` when it found stale attributes (best effort). */
export interface Counted {
  readonly counted: true;
  readonly item: LimiterItem;
  readonly tidy?: () => Promise<void>;
}

/** A refused write: `item` when the store got it with the refusal (null: no item), otherwise the limiter reads it. */
export interface Refused {
  readonly counted: false;
  readonly item?: LimiterItem | null;
}

/** What a shard holds about its account: its slice of the budget, the account's limits, the shard count. */
export interface ShardProvision {
  readonly slice: RateLimits;
  readonly account: RateLimits;
  readonly shards: number;
}

export interface RefundWindows {
  readonly minuteWindow: number;
  readonly dayWindow: number;
  readonly keyId?: string;
  /** @default 1 */
  readonly units?: number;
}

/** Storage port of the limiter; the hot path is `tryConsume`, the rest runs on a refusal or in the account service. */
export interface LimiterStore {
  tryConsume(id: string, condition: ConsumeCondition): Promise<Counted | Refused>;
  get(id: string): Promise<LimiterItem | undefined>;
  /** Writes a shard's slice and the account's limits; keeps its counts and markers. */
  provision(id: string, provision: ShardProvision): Promise<void>;
  /** Like `provision`, only for a shard that has no slice yet. */
  provisionIfMissing(id: string, provision: ShardProvision): Promise<void>;
  /**
   * Sets a key's marker on an existing shard, or on the key's own item with `create`. A ban never
   * shortens an active one (false then); a revocation is set as given.
   */
  setKeyMarker(
    id: string,
    keyId: string,
    marker: KeyMarker,
    untilMs: number,
    nowMs: number,
    options?: { readonly create?: boolean },
  ): Promise<boolean>;
  clearKeyMarker(id: string, keyId: string, marker: KeyMarker): Promise<void>;
  /** Adds a strike if the strike window still starts at `windowStart`; the new count, or undefined. */
  addStrike(id: string, windowStart: number, tally?: StrikeTally): Promise<number | undefined>;
  /** Starts a new strike window with one strike if the current one still starts at `expectedStart`. */
  restartStrikes(id: string, expectedStart: number | undefined, nowMs: number, tally?: StrikeTally): Promise<boolean>;
  resetStrikes(id: string): Promise<void>;
  /** Gives back requests (best effort: nothing in a window that has rolled over). */
  refund(id: string, windows: RefundWindows): Promise<void>;
  /** Adds each amount (negative ones too) to the named counter. */
  adjustCounters(id: string, deltas: Readonly<Record<string, number>>): Promise<void>;
}

/** In the same strike write: +1 on the key's refusal counter of the day, and removal of `expired` counters. */
export interface StrikeTally {
  readonly counter: string;
  readonly expired?: readonly string[];
}

/** A writable copy of a readonly shape, for results built field by field (no spreads on the hot path). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
