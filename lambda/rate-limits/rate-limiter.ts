import type { RateLimits } from '../../contracts/plans.js';
import type { Clock } from '../shared/clock.js';
import { BannedRefusalTally } from './banned-refusals.js';
import { ContainerKnowledge, EXHAUSTION_MEMORY_MS, type Exhaustion } from './container-knowledge.js';
import { adoptNewerWindows, type LimiterItem } from './limiter-item.js';
import {
  type LimiterState,
  limitsOn,
  type Remaining,
  remainingOn,
  secondsUntil,
  stateOf,
  type WindowName,
} from './limiter-state.js';
import type { ConsumeCondition, Counted, LimiterStore, Mutable } from './limiter-store.js';
import { shardCount, shardId, shardIds, sliceOf } from './shards.js';
import { strike } from './strikes.js';
import { dayWindowEndMs, minuteWindowEndMs, type Windows, windowsAt } from './windows.js';
import type {
  AllowedDecision,
  AnonymousSubject,
  Consumption,
  KeySubject,
  LimiterDecision,
  LimiterSubject,
  PeekMode,
} from './limiter-decision.js';

export class LimiterContentionError extends Error {
  constructor(id: string) {
    super(`rate limiter state of ${id} kept changing under concurrent writes`);
    this.name = 'LimiterContentionError';
  }
}

/** DynamoDB's answers to a write past a partition's ceiling, as the SDK throws them once its standard retries are spent. */
const THROTTLING_ERRORS = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException']);
const isThrottling = (error: unknown) => THROTTLING_ERRORS.has((error as { name?: string } | null)?.name ?? '');

/** Attempts beyond one per shard, for writes that race with other requests, refunds and roll-overs. */
const EXTRA_ATTEMPTS = 8;

/** Exact fixed-window limiter: docs/contributors/limiter.md, "The limiter: one budget per account, exact at any scale". */
export class RateLimiter {
  private readonly knowledge = new ContainerKnowledge();
  private readonly bannedRefusals: BannedRefusalTally;

  constructor(
    private readonly store: LimiterStore,
    private readonly clock: Clock,
    /** Picks a shard among the candidates (tests make it deterministic). @default uniform random */
    private readonly pick: (candidates: number) => number = (n) => Math.floor(Math.random() * n),
  ) {
    this.bannedRefusals = new BannedRefusalTally(clock);
  }

  /** Counts one request, or a key's batch of `units` all or none (docs/api-clients.md, "Batch send"). */
  consume(subject: LimiterSubject, units = 1): Promise<LimiterDecision> {
    if (subject.kind === 'key') return this.consumeKey(subject, units).then((d) => this.answered(d));
    if (units !== 1) throw new Error('only a key sends batches');
    return this.consumeAnonymous(subject);
  }

  /** Judges a request without counting it (invalid requests, reads, idempotent replays). */
  async peek(subject: LimiterSubject, mode: PeekMode): Promise<LimiterDecision> {
    return this.answered(await this.judge(subject, mode));
  }

  private async judge(subject: LimiterSubject, mode: PeekMode): Promise<LimiterDecision> {
    const nowMs = this.clock.now();
    const windows = windowsAt(nowMs);
    if (subject.kind === 'anonymous') {
      const item = await this.store.get(subject.id);
      const remaining = remainingOn(item, windows, subject.limits);
      const state = stateOf(subject.limits, remaining, windows, nowMs);
      if (mode === 'read' || (remaining.minute > 0 && remaining.day > 0)) return { outcome: 'allowed', state };
      return rateLimitedAnonymous(subject, remaining, windows, nowMs);
    }
    const bannedUntil = this.knowledge.banUntil(subject.keyId, nowMs);
    if (bannedUntil !== undefined) return this.banned(subject, nowMs, windows, bannedUntil);
    const shards = this.knowledge.shardCount(subject.accountId) ?? shardCount(subject.limits);
    const open = this.candidates(subject.accountId, shards, windows, nowMs, new Map());
    const first = open.length > 0 ? (open[this.pick(open.length)] as number) : 0;
    const item = await this.store.get(shardId(subject.accountId, first));
    const refusal = this.markerRefusal(subject, item, windows, nowMs);
    if (refusal) return refusal;
    const remaining = remainingOn(item, windows, subject.limits);
    if (mode === 'read' || (remaining.minute > 0 && remaining.day > 0)) {
      return { outcome: 'allowed', state: stateOf(limitsOn(item, subject.limits), remaining, windows, nowMs) };
    }
    // That shard is spent: the request would be counted on another one if any still has budget.
    const ids = shardIds(subject.accountId, shards);
    const items = await Promise.all(ids.map((id, i) => (i === first ? item : this.store.get(id))));
    const spent = new Map<string, Exhaustion>();
    for (const [i, other] of items.entries()) {
      const left = remainingOn(other, windows, subject.limits);
      if (left.minute > 0 && left.day > 0) {
        return { outcome: 'allowed', state: stateOf(limitsOn(other, subject.limits), left, windows, nowMs) };
      }
      spent.set(ids[i] as string, exhaustionOf(limitsOn(other, subject.limits), left, windows, nowMs));
    }
    return this.rateLimited(subject, nowMs, windows, shards, spent, 1);
  }

  /** A ban's answer waits for the banned-refusal count its refusal started writing, if any. */
  private async answered(decision: LimiterDecision): Promise<LimiterDecision> {
    if (decision.outcome === 'banned') await this.bannedRefusals.settled();
    return decision;
  }

  /** Gives back a request that was counted but then failed (e.g. the queue was unavailable). */
  async refund(consumption: Consumption): Promise<void> {
    await this.store.refund(consumption.item, consumption);
  }

  private async consumeKey(subject: KeySubject, units: number): Promise<LimiterDecision> {
    const nowMs = this.clock.now();
    let windows: Windows = windowsAt(nowMs);
    const bannedUntil = this.knowledge.banUntil(subject.keyId, nowMs);
    if (bannedUntil !== undefined) return this.banned(subject, nowMs, windows, bannedUntil);
    let shards = this.knowledge.shardCount(subject.accountId) ?? shardCount(subject.limits);
    const spent = new Map<string, Exhaustion>();
    let throttled: unknown;
    const hot = new Set<number>();
    /** A batch's write pins each shard's slice: learned from the shard when it is not the caller's guess. */
    const storedSlices = new Map<number, RateLimits>();
    for (let attempt = 0; attempt < shards + EXTRA_ATTEMPTS; attempt++) {
      const open = this.candidates(subject.accountId, shards, windows, nowMs, spent).filter((i) => !hot.has(i));
      if (open.length === 0) {
        // Every open shard was throttled past the client's retries: the table is overloaded (503).
        if (throttled !== undefined) throw throttled;
        return this.rateLimited(subject, nowMs, windows, shards, spent, units);
      }
      const index = open[this.pick(open.length)] as number;
      const id = shardId(subject.accountId, index);
      const condition: Mutable<ConsumeCondition> = {
        minuteWindow: windows.minute,
        dayWindow: windows.day,
        limits: 'stored',
        nowMs,
        keyId: subject.keyId,
      };
      if (units !== 1) {
        condition.batch = { units, slice: storedSlices.get(index) ?? sliceOf(subject.limits, shards, index) };
      }
      let result: Awaited<ReturnType<LimiterStore['tryConsume']>>;
      try {
        result = await this.store.tryConsume(id, condition);
      } catch (error) {
        // A shard past its item's write ceiling (after the client's retries): another may take it.
        if (!isThrottling(error) || shards === 1) throw error;
        throttled = error;
        hot.add(index);
        continue;
      }
      if (result.counted) return this.allowedKey(subject, id, windows, nowMs, result, units);

      // Refused: tell why from the item (sent back with the refusal, or read now).
      const item = result.item === undefined ? await this.store.get(id) : (result.item ?? undefined);
      const refusal = this.markerRefusal(subject, item, windows, nowMs);
      if (refusal) return refusal;
      if (item?.minuteLimit === undefined || item.dayLimit === undefined) {
        // A shard the account service did not provision (its creation or a plan change stopped after
        // shard 0, which ensureProvisioned checks): give the shard the caller's limits, then count.
        await this.store.provisionIfMissing(id, {
          slice: sliceOf(subject.limits, shards, index),
          account: subject.limits,
          shards,
        });
        continue;
      }
      const newer = adoptNewerWindows(windows, item);
      if (newer) {
        // Another container's clock is ahead and the shard has rolled over: count in its windows,
        // where the shards this request found spent (in the earlier ones) may have budget again.
        windows = newer;
        spent.clear();
        continue;
      }
      if (item.shards !== undefined && item.shards !== shards) {
        // The account's shard count is not what this caller's limits imply (a plan change they predate).
        shards = item.shards;
        this.knowledge.learnShardCount(subject.accountId, shards);
      }
      storedSlices.set(index, { perMinute: item.minuteLimit, perDay: item.dayLimit });
      const remaining = remainingOn(item, windows, subject.limits);
      if (remaining.minute < units || remaining.day < units) {
        const exhaustion = exhaustionOf(limitsOn(item, subject.limits), remaining, windows, nowMs);
        // Only a spent shard is remembered by the container: one too small for this batch still takes smaller ones.
        if (remaining.minute === 0 || remaining.day === 0) this.knowledge.markExhausted(id, exhaustion);
        spent.set(id, exhaustion);
      }
      // Otherwise the item changed between the write and the read (a refund, a new window, the slice a batch pinned): again.
    }
    throw new LimiterContentionError(shardId(subject.accountId, 0));
  }

  private async consumeAnonymous(subject: AnonymousSubject): Promise<LimiterDecision> {
    const nowMs = this.clock.now();
    let windows: Windows = windowsAt(nowMs);
    for (let attempt = 0; attempt < EXTRA_ATTEMPTS; attempt++) {
      const result = await this.store.tryConsume(subject.id, {
        minuteWindow: windows.minute,
        dayWindow: windows.day,
        limits: subject.limits,
        nowMs,
        // Kept a day past its window (TTL), so the item vanishes on its own.
        expiresAtSeconds: Math.floor(dayWindowEndMs(windows.day + 1) / 1000),
      });
      if (result.counted) {
        const state = stateOf(subject.limits, remainingOn(result.item, windows, subject.limits), windows, nowMs);
        return this.withHousekeeping({ outcome: 'allowed', state }, result);
      }
      const item = result.item === undefined ? await this.store.get(subject.id) : (result.item ?? undefined);
      const newer = adoptNewerWindows(windows, item);
      if (newer) {
        windows = newer;
        continue;
      }
      const remaining = remainingOn(item, windows, subject.limits);
      if (remaining.minute === 0 || remaining.day === 0) {
        return rateLimitedAnonymous(subject, remaining, windows, nowMs);
      }
    }
    throw new LimiterContentionError(subject.id);
  }

  private allowedKey(
    subject: KeySubject,
    id: string,
    windows: Windows,
    nowMs: number,
    counted: Counted,
    units: number,
  ): LimiterDecision {
    const item = counted.item;
    if (item.shards !== undefined) this.knowledge.learnShardCount(subject.accountId, item.shards);
    const consumption: Mutable<Consumption> = {
      item: id,
      minuteWindow: windows.minute,
      dayWindow: windows.day,
      keyId: subject.keyId,
    };
    if (units !== 1) consumption.units = units;
    const state = stateOf(limitsOn(item, subject.limits), remainingOn(item, windows, subject.limits), windows, nowMs);
    return this.withHousekeeping({ outcome: 'allowed', state, consumption }, counted);
  }

  private withHousekeeping(decision: Mutable<AllowedDecision>, counted: Counted): AllowedDecision {
    // Best effort: a failure leaves old attributes for a later request to remove.
    if (counted.tidy) decision.housekeeping = counted.tidy().catch(() => undefined);
    return decision;
  }

  /** Shards still worth a write: neither refused during this request nor known spent by this container. */
  private candidates(
    accountId: string,
    shards: number,
    windows: Windows,
    nowMs: number,
    spent: ReadonlyMap<string, Exhaustion>,
  ): number[] {
    const open: number[] = [];
    for (let i = 0; i < shards; i++) {
      const id = shardId(accountId, i);
      if (!spent.has(id) && !this.knowledge.exhaustion(id, windows, nowMs)) open.push(i);
    }
    return open;
  }

  /** A revocation or ban marker of the key on the item, which refuses whatever the budget. */
  private markerRefusal(
    subject: KeySubject,
    item: LimiterItem | undefined,
    windows: Windows,
    nowMs: number,
  ): LimiterDecision | undefined {
    const key = item?.keys[subject.keyId];
    if (key?.revokedUntil !== undefined && key.revokedUntil > nowMs) {
      const state = stateOf(limitsOn(item, subject.limits), remainingOn(item, windows, subject.limits), windows, nowMs);
      return { outcome: 'revoked', state };
    }
    if (key?.banUntil !== undefined && key.banUntil > nowMs) {
      this.knowledge.rememberBan(subject.keyId, key.banUntil, nowMs);
      return this.banned(subject, nowMs, windows, key.banUntil, item);
    }
    return undefined;
  }

  /** No shard has room for the request or the batch: a 429 for the window that refuses, and a strike. */
  private async rateLimited(
    subject: KeySubject,
    nowMs: number,
    windows: Windows,
    shards: number,
    spent: ReadonlyMap<string, Exhaustion>,
    units: number,
  ): Promise<LimiterDecision> {
    const known = shardIds(subject.accountId, shards).map(
      (id) => spent.get(id) ?? this.knowledge.exhaustion(id, windows, nowMs),
    );
    // The day refuses only when no shard's day has room; otherwise the next minute brings budget back.
    const blocking: WindowName = known.every((e) => e !== undefined && e.remaining.day < units) ? 'day' : 'minute';
    const limits = known.find((e) => e !== undefined)?.limits ?? subject.limits;
    const most = (window: WindowName) => Math.max(0, ...known.map((e) => e?.remaining[window] ?? 0));
    // A single request is refused by spent shards (0 left); a batch may be refused with some left.
    const refusedLeft = (window: WindowName) => (units === 1 ? 0 : most(window));
    const remaining: Remaining = {
      minute: blocking === 'minute' ? refusedLeft('minute') : most('minute'),
      day: blocking === 'day' ? refusedLeft('day') : most('day'),
    };
    const struck = await strike(this.store, subject.keyId, subject.ban, nowMs, shardIds(subject.accountId, shards));
    if (struck.outcome === 'revoked') return { outcome: 'revoked', state: stateOf(limits, remaining, windows, nowMs) };
    if (struck.outcome === 'banned') {
      this.knowledge.rememberBan(subject.keyId, struck.untilMs, nowMs);
      return this.banned(subject, nowMs, windows, struck.untilMs, undefined, struck.strikeCounted !== true);
    }
    return rateLimitedIn(blocking, limits, remaining, windows, nowMs);
  }

  private banned(
    subject: KeySubject,
    nowMs: number,
    windows: Windows,
    untilMs: number,
    item?: LimiterItem,
    /** False when this refusal's strike write already counted it (as rate limited). */
    countRefusal = true,
  ): LimiterDecision {
    // Written at most every few seconds per container; `answered` waits for a write this starts.
    if (countRefusal) void this.bannedRefusals.note(this.store, subject.keyId, nowMs);
    const state: LimiterState = {
      ...stateOf(limitsOn(item, subject.limits), { minute: 0, day: 0 }, windows, nowMs),
      ban: { untilMs, durationSeconds: subject.ban.durationSeconds },
    };
    return { outcome: 'banned', state, retryAfterSeconds: secondsUntil(untilMs, nowMs) };
  }
}

function exhaustionOf(limits: RateLimits, remaining: Remaining, windows: Windows, nowMs: number): Exhaustion {
  return { windows, remaining, limits, untilMs: nowMs + EXHAUSTION_MEMORY_MS };
}

/** When both windows are spent, the day blocks: retrying at the minute's end would fail again. */
const rateLimitedAnonymous = (subject: AnonymousSubject, remaining: Remaining, windows: Windows, nowMs: number) =>
  rateLimitedIn(remaining.day === 0 ? 'day' : 'minute', subject.limits, remaining, windows, nowMs);

function rateLimitedIn(
  blocking: WindowName,
  limits: RateLimits,
  remaining: Remaining,
  windows: Windows,
  nowMs: number,
): LimiterDecision {
  const endMs = blocking === 'day' ? dayWindowEndMs(windows.day) : minuteWindowEndMs(windows.minute);
  const state: LimiterState = { ...stateOf(limits, remaining, windows, nowMs), blocking };
  return { outcome: 'rate_limited', state, window: blocking, retryAfterSeconds: secondsUntil(endMs, nowMs) };
}
