import type { RateLimits } from '../../contracts/plans.js';
import type { KeyMarker, LimiterItem } from './limiter-item.js';

export type { KeyEntry, KeyMarker, LimiterItem, WindowCount } from './limiter-item.js';

export interface ConsumeCondition {
  readonly minuteWindow: number;
  readonly dayWindow: number;
  /** Limits to compare with, or 'stored' for the item's own slice (`minuteLimit`, `dayLimit`: account shards). */
  readonly limits: RateLimits | 'stored';
  readonly nowMs: number;
  /**
   * The key making the request (account shards): refused while the item holds an active ban or
   * revocation marker for it; its own counters and last use are kept by the same write.
   */
  readonly keyId?: string;
  /** Epoch seconds after which the item may be deleted (anonymous subjects); shards never expire. */
  readonly expiresAtSeconds?: number;
  /**
   * A batch of `units` requests counted by one write, on a shard (`limits: 'stored'`). An update's
   * condition cannot add, so it requires the shard's stored slice to be `slice` and compares the
   * counts with `slice − units`; a shard holding another slice refuses, and the limiter reads it.
   */
  readonly batch?: { readonly units: number; readonly slice: RateLimits };
}

/** A counted request: the item the write left behind. */
export interface Counted {
  readonly counted: true;
  readonly item: LimiterItem;
  /**
   * Set when the write found attributes to tidy (counters of long-past windows, expired markers):
   * removes them. Best effort and off the critical path; a failure leaves them for a later request.
   */
  readonly tidy?: () => Promise<void>;
}

/**
 * A refused write. `item` is the item that refused it when the store got it with the refusal
 * (DynamoDB's ReturnValuesOnConditionCheckFailure), null when there is no item; otherwise the
 * limiter reads it.
 */
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

/** Where a refund gives requests back, and how many (a batch's units; @default 1). */
export interface RefundWindows {
  readonly minuteWindow: number;
  readonly dayWindow: number;
  readonly keyId?: string;
  readonly units?: number;
}

/**
 * Storage port of the limiter. The hot path is `tryConsume`: one conditional write that counts the
 * request in the current minute and day windows (and in the key's own counters), only while the
 * item's budget is not spent and the key is neither banned nor revoked. Everything else runs on a
 * refusal or in the account service.
 */
export interface LimiterStore {
  tryConsume(id: string, condition: ConsumeCondition): Promise<Counted | Refused>;
  get(id: string): Promise<LimiterItem | undefined>;
  /** Writes a shard's slice and the account's limits; creates the shard if missing, keeps its counts and markers. */
  provision(id: string, provision: ShardProvision): Promise<void>;
  /** Like `provision`, only for a shard that has no slice yet (the hot path meeting a shard whose provisioning stopped part way). */
  provisionIfMissing(id: string, provision: ShardProvision): Promise<void>;
  /**
   * Sets a key's marker on an item: an account's shard (only if it exists), or the key's own item
   * with `create` (it may hold no strikes yet). A ban never shortens an active one (false when one
   * is active past `nowMs`); a revocation marker is set as given.
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
  /** Adds a strike if the strike window still starts at `windowStart`; returns the new count, or undefined on a mismatch. */
  addStrike(id: string, windowStart: number, tally?: StrikeTally): Promise<number | undefined>;
  /** Starts a new strike window with one strike if the current one still starts at `expectedStart` (none: the item may not exist yet). */
  restartStrikes(id: string, expectedStart: number | undefined, nowMs: number, tally?: StrikeTally): Promise<boolean>;
  /** Clears the strikes (after a ban, or when an operator lifts one). */
  resetStrikes(id: string): Promise<void>;
  /** Gives back `units` requests (default 1) in the given windows (best effort: nothing in a window that has rolled over). */
  refund(id: string, windows: RefundWindows): Promise<void>;
  /** Adds each amount (negative ones too) to the named counter: moves counts between shards when an account is resharded. */
  adjustCounters(id: string, deltas: Readonly<Record<string, number>>): Promise<void>;
}

/**
 * What a strike write also does for the usage history: adds one to the key's refusal counter of
 * the day (`counter`), and removes counters past retention (`expired`), in the same write.
 */
export interface StrikeTally {
  readonly counter: string;
  readonly expired?: readonly string[];
}

/** A writable copy of a readonly shape, for results built field by field (no spreads on the hot path). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
