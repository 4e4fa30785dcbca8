import type { RateLimits } from '../../contracts/plans.js';
import { countIn, type LimiterItem } from './limiter-item.js';
import { dayWindowEndMs, minuteWindowEndMs, type Windows } from './windows.js';

export type WindowName = 'minute' | 'day';

export interface WindowUsage {
  readonly name: WindowName;
  readonly limit: number;
  /** limit − what remains: never less than the requests counted, so Remaining never overstates. */
  readonly used: number;
  readonly windowSeconds: number;
  readonly resetMs: number;
}

export interface LimiterState {
  readonly minute: WindowUsage;
  readonly day: WindowUsage;
  readonly nowMs: number;
  /** On a 429 for the budget: the window that refused, which the headers then describe. */
  readonly blocking?: WindowName;
  /** While the key is banned: when the ban ends, and the ban's length (its policy's window). */
  readonly ban?: { readonly untilMs: number; readonly durationSeconds: number };
}

/** What remains as far as one item can tell; exact for a single-item budget. */
export interface Remaining {
  readonly minute: number;
  readonly day: number;
}

/** What remains on one item: its slice less its counts (with several shards, a lower bound of the account's). */
export function remainingOn(item: LimiterItem | undefined, windows: Windows, fallback: RateLimits): Remaining {
  return {
    minute: Math.max(0, (item?.minuteLimit ?? fallback.perMinute) - countIn(item?.minute, windows.minute)),
    day: Math.max(0, (item?.dayLimit ?? fallback.perDay) - countIn(item?.day, windows.day)),
  };
}

/** The account's limits as the item states them (a plan change applies at once), else the caller's. */
export function limitsOn(item: LimiterItem | undefined, fallback: RateLimits): RateLimits {
  return { perMinute: item?.perMinute ?? fallback.perMinute, perDay: item?.perDay ?? fallback.perDay };
}

const windowUsage = (name: WindowName, limit: number, remaining: number, windowSeconds: number, resetMs: number) =>
  ({ name, limit, used: Math.max(0, limit - remaining), windowSeconds, resetMs });

export function stateOf(limits: RateLimits, remaining: Remaining, windows: Windows, nowMs: number): LimiterState {
  return {
    nowMs,
    minute: windowUsage('minute', limits.perMinute, remaining.minute, 60, minuteWindowEndMs(windows.minute)),
    day: windowUsage('day', limits.perDay, remaining.day, 86_400, dayWindowEndMs(windows.day)),
  };
}

/** Whole seconds until `targetMs`, at least `floor` (1 for Retry-After; RateLimit's t may be 0). */
export function secondsUntil(targetMs: number, nowMs: number, floor = 1): number {
  return Math.max(floor, Math.ceil((targetMs - nowMs) / 1000));
}
