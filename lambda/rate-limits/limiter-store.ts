/**
 * The state of one limiter subject, an API key (`key#<id>`) or an anonymous client IP (`ip#<addr>`),
 * as the limiter reads it: the counts of the latest minute and day windows that hold any.
 */
export interface LimiterItem {
  readonly id: string;
  /** Absent for anonymous subjects; `revoked` refuses a key at once, whatever the authorizer cached. */
  readonly status?: 'active' | 'revoked';
  readonly minuteWindow: number;
  readonly minuteCount: number;
  readonly dayWindow: number;
  readonly dayCount: number;
  /** Start (epoch ms) of the rolling minute in which 429 refusals are counted. */
  readonly strikeWindowStart?: number;
  readonly strikeCount?: number;
  /** Epoch ms until which the subject is banned. */
  readonly banUntil?: number;
  /**
   * Limits of a key, written by the control plane (key creation, plan change): the hot path
   * compares against these, so a plan change applies on the very next request.
   */
  readonly minuteLimit?: number;
  readonly dayLimit?: number;
  /** Epoch ms of the last accepted request (kept by the same write that counts it). */
  readonly lastUsedAt?: number;
}

export interface ConsumeCondition {
  readonly minuteWindow: number;
  readonly dayWindow: number;
  /** Limits to compare with, or 'stored' for the item's own minuteLimit/dayLimit (keys). */
  readonly limits: { readonly perMinute: number; readonly perDay: number } | 'stored';
  readonly nowMs: number;
  /** Epoch seconds after which the item may be deleted (anonymous subjects); keys never expire. */
  readonly expiresAtSeconds?: number;
}

export interface Counts {
  readonly minuteCount: number;
  readonly dayCount: number;
}

/** What a successful consume returns: the new counts and the limits they were checked against. */
export interface Consumed extends Counts {
  readonly minuteLimit?: number;
  readonly dayLimit?: number;
  /**
   * Set when the write found counters of windows older than the previous ones (the subject was
   * idle for a while): removes them. Best effort and off the critical path; a failure only leaves
   * them for the next request to find.
   */
  readonly tidy?: () => Promise<void>;
}

/**
 * Storage port of the limiter. The hot path is `tryConsume`: one conditional write that counts the
 * request in the current minute and day windows, whichever windows the item held before, only when
 * the subject is active, not banned and below its limits. There is no separate roll-over write.
 */
export interface LimiterStore {
  tryConsume(id: string, condition: ConsumeCondition): Promise<Consumed | undefined>;
  get(id: string): Promise<LimiterItem | undefined>;
  /** Adds a strike if the strike window still starts at `windowStart`; returns the new count, or undefined on a mismatch. */
  addStrike(id: string, windowStart: number): Promise<number | undefined>;
  /** Starts a new strike window with one strike if the current one still starts at `expectedStart`. */
  restartStrikes(id: string, expectedStart: number | undefined, nowMs: number): Promise<boolean>;
  /** Bans until `untilMs` unless already banned past `nowMs`; clears strikes. */
  ban(id: string, untilMs: number, nowMs: number): Promise<void>;
  /** Gives back one request in the given windows (best effort: nothing in a window that has rolled over). */
  refund(id: string, windows: { minuteWindow: number; dayWindow: number }): Promise<void>;
  /** Creates (or reactivates) a key subject with its limits; existing counts are kept. */
  activateKey(id: string, limits: { perMinute: number; perDay: number }): Promise<void>;
  /** Changes the limits of a key subject (plan change); applies to the next request. */
  setLimits(id: string, limits: { perMinute: number; perDay: number }): Promise<void>;
  /** Refuses the key from the next request on. */
  revokeKey(id: string): Promise<void>;
  /** Clears a ban and its strikes. */
  liftBan(id: string): Promise<void>;
}

/** A writable copy of a readonly shape, for results built field by field (no spreads on the hot path). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
