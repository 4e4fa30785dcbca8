import type { BanPolicy, RateLimits } from '../../lib/config/index.js';
import type { Clock } from '../shared/clock.js';
import type { Consumed, Counts, LimiterItem, LimiterStore, Mutable } from './limiter-store.js';
import { dayWindowEndMs, minuteWindowEndMs, windowsAt } from './windows.js';

export interface LimiterSubject {
  readonly id: string;
  /**
   * Anonymous subjects: the limits that apply. Keys: the limits stored in the limiter item apply
   * (written by the control plane); these are used only if the item has none.
   */
  readonly limits: RateLimits;
  /** Bans apply to keys; anonymous subjects are only rate limited. */
  readonly ban?: BanPolicy;
  /** Keys are created active by the control plane; anonymous subjects are created on first use. */
  readonly kind: 'key' | 'anonymous';
}

export interface WindowUsage {
  readonly name: 'minute' | 'day';
  readonly limit: number;
  readonly used: number;
  readonly windowSeconds: number;
  /** Epoch ms at which the window resets. */
  readonly resetMs: number;
}

export interface LimiterState {
  readonly minute: WindowUsage;
  readonly day: WindowUsage;
  readonly nowMs: number;
  /** Set while banned: epoch ms at which the ban ends. */
  readonly bannedUntilMs?: number;
}

/** Windows in which a consumed request was counted, for a refund. */
export interface Consumption {
  readonly minuteWindow: number;
  readonly dayWindow: number;
}

export interface AllowedDecision {
  readonly outcome: 'allowed';
  readonly state: LimiterState;
  readonly consumption?: Consumption;
  /**
   * Set when the counting write left tidying to do (counters of long-past windows). Already
   * running and never rejecting; a caller that can overlap it with its own work awaits it before
   * answering, so that nothing is left in flight when a Lambda function is frozen.
   */
  readonly housekeeping?: Promise<void>;
}

export type LimiterDecision =
  | AllowedDecision |
  {
    readonly outcome: 'rate_limited';
    readonly state: LimiterState;
    readonly window: 'minute' | 'day';
    readonly retryAfterSeconds: number;
  } |
  { readonly outcome: 'banned'; readonly state: LimiterState; readonly retryAfterSeconds: number } |
  { readonly outcome: 'revoked'; readonly state: LimiterState };

/** How a request that is not counted is judged: a send is refused at the limit, a read only when banned. */
export type PeekMode = 'send' | 'read';

export class LimiterContentionError extends Error {
  constructor(id: string) {
    super(`rate limiter state of ${id} kept changing under concurrent writes`);
    this.name = 'LimiterContentionError';
  }
}

const MAX_ATTEMPTS = 8;
const STRIKE_WINDOW_MS = 60_000;
/** Anonymous items are kept a day past their window (TTL), so they vanish on their own. */
const anonymousExpiry = (dayWindow: number) => Math.floor(dayWindowEndMs(dayWindow + 1) / 1000);

/**
 * Exact fixed-window limiter (design §2). Only accepted requests consume budget; the common case
 * is one conditional write, and only a refused write reads the item to classify why.
 */
export class RateLimiter {
  constructor(
    private readonly store: LimiterStore,
    private readonly clock: Clock,
  ) {}

  /** Counts one request if the subject may make it. */
  async consume(subject: LimiterSubject): Promise<LimiterDecision> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const nowMs = this.clock.now();
      const windows = windowsAt(nowMs);
      const counted = await this.store.tryConsume(subject.id, {
        minuteWindow: windows.minute,
        dayWindow: windows.day,
        limits: subject.kind === 'key' ? 'stored' : subject.limits,
        nowMs,
        ...(subject.kind === 'anonymous' ? { expiresAtSeconds: anonymousExpiry(windows.day) } : {}),
      });
      if (counted) {
        return this.allowed(subject, nowMs, counted, { minuteWindow: windows.minute, dayWindow: windows.day });
      }

      // Refused: read the item to tell why (revoked, banned, a spent window).
      const item = await this.store.get(subject.id);
      const refusal = await this.refusal(subject, item, nowMs, 'send');
      if (refusal) return refusal;
      if (subject.kind === 'key') {
        // The control plane creates key items, active; a key without one was never issued properly.
        if (item?.status !== 'active') return { outcome: 'revoked', state: this.stateOf(subject, nowMs, item) };
        // An item written before limits were stored in it: store the plan's, then count.
        if (item.minuteLimit === undefined || item.dayLimit === undefined) {
          await this.store.setLimits(subject.id, subject.limits);
        }
      }
      // Otherwise the item changed between the write and the read (a refund, a new window): again.
    }
    throw new LimiterContentionError(subject.id);
  }

  /** Judges a request without counting it (invalid requests, reads, idempotent replays). */
  async peek(subject: LimiterSubject, mode: PeekMode): Promise<LimiterDecision> {
    const nowMs = this.clock.now();
    const item = await this.store.get(subject.id);
    const refusal = await this.refusal(subject, item, nowMs, mode);
    if (refusal) return refusal;
    if (!item && subject.kind === 'key') return { outcome: 'revoked', state: this.stateOf(subject, nowMs, undefined) };
    return { outcome: 'allowed', state: this.stateOf(subject, nowMs, item) };
  }

  /** Gives back a request that was counted but then failed (e.g. the queue was unavailable). */
  async refund(subject: LimiterSubject, consumption: Consumption): Promise<void> {
    await this.store.refund(subject.id, consumption);
  }

  private async refusal(
    subject: LimiterSubject,
    item: LimiterItem | undefined,
    nowMs: number,
    mode: PeekMode,
  ): Promise<LimiterDecision | undefined> {
    if (item?.status === 'revoked') return { outcome: 'revoked', state: this.stateOf(subject, nowMs, item) };
    if (item?.banUntil !== undefined && item.banUntil > nowMs) return this.banned(subject, nowMs, item, item.banUntil);
    if (mode === 'read') return undefined;

    const state = this.stateOf(subject, nowMs, item);
    // When both windows are spent, the day blocks: retrying at the minute's end would fail again.
    const blocking = [state.day, state.minute].find((w) => w.used >= w.limit);
    if (!blocking) return undefined;

    const banUntil = await this.strike(subject, item, nowMs);
    if (banUntil !== undefined) return this.banned(subject, nowMs, item, banUntil);
    return {
      outcome: 'rate_limited',
      state,
      window: blocking.name,
      retryAfterSeconds: secondsUntil(blocking.resetMs, nowMs),
    };
  }

  /** Records a 429 refusal; returns the ban end when this refusal crossed the threshold. */
  private async strike(
    subject: LimiterSubject,
    item: LimiterItem | undefined,
    nowMs: number,
  ): Promise<number | undefined> {
    const policy = subject.ban;
    if (!policy || !item) return undefined;
    const windowStart = item.strikeWindowStart;
    let strikes: number | undefined;
    if (windowStart !== undefined && nowMs - windowStart < STRIKE_WINDOW_MS) {
      strikes = await this.store.addStrike(subject.id, windowStart);
    }
    if (strikes === undefined) {
      // The strike window expired (or another request restarted it): start a new one.
      if (await this.store.restartStrikes(subject.id, windowStart, nowMs)) strikes = 1;
      else
        strikes = await this.store.addStrike(
          subject.id,
          (await this.store.get(subject.id))?.strikeWindowStart ?? nowMs,
        );
    }
    if (strikes !== undefined && strikes > policy.threshold) {
      const until = nowMs + policy.durationSeconds * 1000;
      await this.store.ban(subject.id, until, nowMs);
      return until;
    }
    return undefined;
  }

  private allowed(
    subject: LimiterSubject,
    nowMs: number,
    counted: Consumed,
    consumption: Consumption,
  ): LimiterDecision {
    // The item the write left behind; its windows are the consumption's (both are those of nowMs).
    const decision: Mutable<AllowedDecision> = {
      outcome: 'allowed',
      consumption,
      state: this.stateOf(subject, nowMs, {
        id: subject.id,
        minuteWindow: consumption.minuteWindow,
        dayWindow: consumption.dayWindow,
        minuteCount: counted.minuteCount,
        dayCount: counted.dayCount,
        minuteLimit: counted.minuteLimit,
        dayLimit: counted.dayLimit,
      }),
    };
    // Best effort: a failure leaves old counters for a later request to remove.
    if (counted.tidy) decision.housekeeping = counted.tidy().catch(() => undefined);
    return decision;
  }

  private banned(
    subject: LimiterSubject,
    nowMs: number,
    item: LimiterItem | undefined,
    untilMs: number,
  ): LimiterDecision {
    return {
      outcome: 'banned',
      state: { ...this.stateOf(subject, nowMs, item), bannedUntilMs: untilMs },
      retryAfterSeconds: secondsUntil(untilMs, nowMs),
    };
  }

  private stateOf(subject: LimiterSubject, nowMs: number, item: LimiterItem | undefined): LimiterState {
    const windows = windowsAt(nowMs);
    const counts = rolled(item, windows);
    const limits = effectiveLimits(subject, item);
    return {
      nowMs,
      minute: {
        name: 'minute',
        limit: limits.perMinute,
        used: counts.minuteCount,
        windowSeconds: 60,
        resetMs: minuteWindowEndMs(windows.minute),
      },
      day: {
        name: 'day',
        limit: limits.perDay,
        used: counts.dayCount,
        windowSeconds: 86_400,
        resetMs: dayWindowEndMs(windows.day),
      },
    };
  }
}

/** A key's stored limits (set by the control plane) win over the subject's defaults. */
function effectiveLimits(subject: LimiterSubject, item: LimiterItem | undefined): RateLimits {
  if (subject.kind !== 'key') return subject.limits;
  return {
    perMinute: item?.minuteLimit ?? subject.limits.perMinute,
    perDay: item?.dayLimit ?? subject.limits.perDay,
  };
}

/** Counts of the current windows: a count from an earlier window no longer applies. */
function rolled(item: LimiterItem | undefined, windows: { minute: number; day: number }): Counts {
  return {
    minuteCount: item && item.minuteWindow === windows.minute ? item.minuteCount : 0,
    dayCount: item && item.dayWindow === windows.day ? item.dayCount : 0,
  };
}

/** Whole seconds until `targetMs`, at least 1 (Retry-After). */
export function secondsUntil(targetMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((targetMs - nowMs) / 1000));
}

export const keySubjectId = (keyId: string) => `key#${keyId}`;
export const anonymousSubjectId = (ip: string) => `ip#${ip}`;
