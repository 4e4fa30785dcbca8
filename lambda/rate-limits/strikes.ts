import type { BanPolicy } from '../../contracts/plans.js';
import { expiredRefusalCounters, refusalCounter, utcDate } from './limiter-item.js';
import type { LimiterStore, StrikeTally } from './limiter-store.js';
import { keyItemId } from './shards.js';

export const STRIKE_WINDOW_MS = 60_000;

/** What a 429 refusal of a key turned out to be, once its own item was read. */
export type StrikeOutcome =
  | { readonly outcome: 'struck' } |
  /** `strikeCounted`: this refusal's strike was written (and counted as rate limited) before it banned the key. */
  { readonly outcome: 'banned'; readonly untilMs: number; readonly strikeCounted?: boolean } |
  { readonly outcome: 'revoked' };

/**
 * Records a 429 of a key on its own item (`key#<id>`: a flood of refusals takes nothing from the
 * shards' write capacity), banning the key past the policy's threshold within a rolling minute.
 * The item's ban and revocation markers are read first, so a banned or revoked key is never told
 * it merely met the budget. The same write counts the day's `rateLimited` refusal.
 */
export async function strike(
  store: LimiterStore,
  keyId: string,
  policy: BanPolicy,
  nowMs: number,
  shards: readonly string[],
): Promise<StrikeOutcome> {
  const id = keyItemId(keyId);
  const item = await store.get(id);
  const entry = item?.keys[keyId];
  if (entry?.revokedUntil !== undefined && entry.revokedUntil > nowMs) return { outcome: 'revoked' };
  if (entry?.banUntil !== undefined && entry.banUntil > nowMs) return { outcome: 'banned', untilMs: entry.banUntil };
  const windowStart = item?.strikeWindowStart;
  const tally: StrikeTally = { counter: refusalCounter('rateLimited', utcDate(nowMs)) };
  let strikes: number | undefined;
  if (windowStart !== undefined && nowMs - windowStart < STRIKE_WINDOW_MS) {
    strikes = await store.addStrike(id, windowStart, tally);
  }
  if (strikes === undefined) {
    // The strike window expired (or another request restarted it): start a new one. At most once
    // a minute per key, so this write also removes refusal counters past retention.
    const expired = expiredRefusalCounters(Object.keys(item?.refusals ?? {}), nowMs);
    const restartTally = expired.length > 0 ? { ...tally, expired } : tally;
    if (await store.restartStrikes(id, windowStart, nowMs, restartTally)) strikes = 1;
    else strikes = await store.addStrike(id, (await store.get(id))?.strikeWindowStart ?? nowMs, tally);
  }
  if (strikes === undefined || strikes <= policy.threshold) return { outcome: 'struck' };
  const until = nowMs + policy.durationSeconds * 1000;
  await ban(store, keyId, shards, until, nowMs);
  return { outcome: 'banned', untilMs: until, strikeCounted: true };
}

/** Bans the key on every shard and on its own item (never shortening an active ban), and clears its strikes. */
export async function ban(
  store: LimiterStore,
  keyId: string,
  shards: readonly string[],
  untilMs: number,
  nowMs: number,
): Promise<void> {
  await Promise.all([
    ...shards.map((shard) => store.setKeyMarker(shard, keyId, 'ban', untilMs, nowMs)),
    store.setKeyMarker(keyItemId(keyId), keyId, 'ban', untilMs, nowMs, { create: true }),
  ]);
  await store.resetStrikes(keyItemId(keyId));
}
