import type { RateLimits } from '../../contracts/plans.js';
import { countIn, dayCounter, keyDayCounter, keyMinuteCounter, type LimiterItem, minuteCounter } from './limiter-item.js';
import type { LimiterStore } from './limiter-store.js';
import { keyItemId, shardCount, shardId, shardIds, sliceOf } from './shards.js';
import { ban as banKey } from './strikes.js';
import { type Windows, windowsAt } from './windows.js';

interface KeyUsage {
  readonly minute: number;
  readonly day: number;
  readonly lastUsedAt?: number;
  readonly bannedUntil?: number;
}

/** An account's usage in the current minute and day, summed over its shards. */
export interface AccountUsage {
  /** Undefined while the account was never provisioned. */
  readonly limits?: RateLimits;
  readonly shards: number;
  readonly windows: Windows;
  readonly minute: number;
  readonly day: number;
  readonly keys: ReadonlyMap<string, KeyUsage>;
}

/** The account service's side of the limiter: provisioning shards (resharding keeps what a window spent), revocations, bans, usage. */
export class AccountLimits {
  constructor(private readonly store: LimiterStore) {}

  async shardsOf(accountId: string): Promise<number> {
    return (await this.store.get(shardId(accountId, 0)))?.shards ?? 1;
  }

  async provision(accountId: string, limits: RateLimits, nowMs: number): Promise<void> {
    const before = await this.shardsOf(accountId);
    const shards = shardCount(limits);
    const all = Math.max(before, shards);
    const zero = { perMinute: 0, perDay: 0 };
    // Retired shards (the count shrank) keep an item with a slice of 0: a caller that still
    // counts them (its authorizer's limits predate the change) is refused there and moves on.
    for (let i = 0; i < all; i++) {
      await this.store.provision(shardId(accountId, i), {
        slice: i < shards ? sliceOf(limits, shards, i) : zero,
        account: limits,
        shards,
      });
    }
    if (before === shards) return;
    const items = await Promise.all(Array.from({ length: all }, (_, i) => this.store.get(shardId(accountId, i))));
    await this.rebalance(accountId, limits, shards, items, windowsAt(nowMs));
    await this.copyMarkers(accountId, shards, before, items, nowMs);
  }

  /** Provisions an account whose shards have no limits yet (its creation stopped before provisioning); leaves others alone. */
  async ensureProvisioned(accountId: string, limits: RateLimits, nowMs: number): Promise<void> {
    const first = await this.store.get(shardId(accountId, 0));
    if (first?.minuteLimit === undefined) await this.provision(accountId, limits, nowMs);
  }

  /** Marks a revoked key on every shard and its own item until the authorizer refuses it; returns its last use. */
  async markRevoked(accountId: string, keyId: string, untilMs: number, nowMs: number): Promise<number | undefined> {
    const shards = await this.shardsOf(accountId);
    await Promise.all([
      ...shardIds(accountId, shards).map((shard) => this.store.setKeyMarker(shard, keyId, 'revoked', untilMs, nowMs)),
      this.store.setKeyMarker(keyItemId(keyId), keyId, 'revoked', untilMs, nowMs, { create: true }),
    ]);
    return (await this.usage(accountId, nowMs)).keys.get(keyId)?.lastUsedAt;
  }

  /** Bans a key as its strikes would. */
  async ban(accountId: string, keyId: string, untilMs: number, nowMs: number): Promise<void> {
    await banKey(this.store, keyId, shardIds(accountId, await this.shardsOf(accountId)), untilMs, nowMs);
  }

  /** Clears a key's ban on every shard and its strikes; true if it was banned. */
  async liftBan(accountId: string, keyId: string, nowMs: number): Promise<boolean> {
    const usage = await this.usage(accountId, nowMs);
    await Promise.all(
      [...shardIds(accountId, usage.shards), keyItemId(keyId)].map((id) => this.store.clearKeyMarker(id, keyId, 'ban')),
    );
    await this.store.resetStrikes(keyItemId(keyId));
    return usage.keys.get(keyId)?.bannedUntil !== undefined;
  }

  async usage(accountId: string, nowMs: number): Promise<AccountUsage> {
    const windows = windowsAt(nowMs);
    const first = await this.store.get(shardId(accountId, 0));
    const shards = first?.shards ?? 1;
    const rest = await Promise.all(
      Array.from({ length: shards - 1 }, (_, i) => this.store.get(shardId(accountId, i + 1))),
    );
    let minute = 0;
    let day = 0;
    const keys = new Map<string, { minute: number; day: number; lastUsedAt?: number; bannedUntil?: number }>();
    for (const item of [first, ...rest]) {
      if (!item) continue;
      minute += countIn(item.minute, windows.minute);
      day += countIn(item.day, windows.day);
      for (const [keyId, entry] of Object.entries(item.keys)) {
        const usage = keys.get(keyId) ?? { minute: 0, day: 0 };
        usage.minute += countIn(entry.minute, windows.minute);
        usage.day += countIn(entry.day, windows.day);
        if (entry.lastUsedAt !== undefined) usage.lastUsedAt = Math.max(usage.lastUsedAt ?? 0, entry.lastUsedAt);
        if (entry.banUntil !== undefined && entry.banUntil > nowMs) {
          usage.bannedUntil = Math.max(usage.bannedUntil ?? 0, entry.banUntil);
        }
        keys.set(keyId, usage);
      }
    }
    const limits = first?.perMinute !== undefined && first.perDay !== undefined
      ? { perMinute: first.perMinute, perDay: first.perDay }
      : undefined;
    return { ...(limits ? { limits } : {}), shards, windows, minute, day, keys };
  }

  /** Moves the current windows' counts to the new slices (docs/contributors/limiter.md); additions first: never over-admits. */
  private async rebalance(
    accountId: string,
    limits: RateLimits,
    shards: number,
    items: ReadonlyArray<LimiterItem | undefined>,
    windows: Windows,
  ): Promise<void> {
    const deltas: Array<Record<string, number>> = items.map(() => ({}));
    type Count = (item: LimiterItem | undefined) => number;
    const spread = (counter: string, current: Count, slice: (i: number) => number) => {
      const counts = items.map(current);
      let left = counts.reduce((a, b) => a + b, 0);
      const targets = counts.map((_, i) => {
        const target = i < shards ? Math.min(slice(i), left) : 0;
        left -= target;
        return target;
      });
      targets[0] = (targets[0] as number) + left;
      counts.forEach((count, i) => {
        (deltas[i] as Record<string, number>)[counter] = (targets[i] as number) - count;
      });
    };
    const slice = (i: number) => sliceOf(limits, shards, i);
    spread(minuteCounter(windows.minute), (item) => countIn(item?.minute, windows.minute), (i) => slice(i).perMinute);
    spread(dayCounter(windows.day), (item) => countIn(item?.day, windows.day), (i) => slice(i).perDay);
    items.forEach((item, i) => {
      if (i < shards || !item) return;
      for (const [keyId, entry] of Object.entries(item.keys)) {
        const moves: Array<[string, number]> = [
          [keyMinuteCounter(keyId, windows.minute), countIn(entry.minute, windows.minute)],
          [keyDayCounter(keyId, windows.day), countIn(entry.day, windows.day)],
        ];
        for (const [counter, count] of moves) {
          if (count === 0) continue;
          const first = deltas[0] as Record<string, number>;
          first[counter] = (first[counter] ?? 0) + count;
          (deltas[i] as Record<string, number>)[counter] = -count;
        }
      }
    });
    const part = (sign: 1 | -1) =>
      deltas.map((d) => Object.fromEntries(Object.entries(d).filter(([, amount]) => Math.sign(amount) === sign)));
    for (const sign of [1, -1] as const) {
      await Promise.all(part(sign).map((d, i) => this.store.adjustCounters(shardId(accountId, i), d)));
    }
  }

  /** New shards get the keys' active ban and revocation markers, as the older shards hold them. */
  private async copyMarkers(
    accountId: string,
    shards: number,
    before: number,
    items: ReadonlyArray<LimiterItem | undefined>,
    nowMs: number,
  ): Promise<void> {
    const first = items[0];
    if (!first || shards <= before) return;
    for (const [keyId, entry] of Object.entries(first.keys)) {
      for (let i = before; i < shards; i++) {
        if (entry.banUntil !== undefined && entry.banUntil > nowMs) {
          await this.store.setKeyMarker(shardId(accountId, i), keyId, 'ban', entry.banUntil, nowMs);
        }
        if (entry.revokedUntil !== undefined && entry.revokedUntil > nowMs) {
          await this.store.setKeyMarker(shardId(accountId, i), keyId, 'revoked', entry.revokedUntil, nowMs);
        }
      }
    }
  }
}
