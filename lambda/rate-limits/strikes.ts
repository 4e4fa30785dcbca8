import type { BanPolicy } from '../../lib/config/index.js';
import type { LimiterStore } from './limiter-store.js';
import { keyItemId } from './shards.js';

export const STRIKE_WINDOW_MS = 60_000;

/**
 * Records a 429 refusal of a key on its own item (`key#<id>`, so that a flood of refusals never
 * takes write capacity from its account's shards); when this one takes the key past the policy's
 * threshold within a rolling minute, bans the key on every shard of its account. Returns the ban's
 * end when this refusal banned the key.
 */
export async function strike(
  store: LimiterStore,
  keyId: string,
  policy: BanPolicy,
  nowMs: number,
  shards: readonly string[],
): Promise<number | undefined> {
  const id = keyItemId(keyId);
  const windowStart = (await store.get(id))?.strikeWindowStart;
  let strikes: number | undefined;
  if (windowStart !== undefined && nowMs - windowStart < STRIKE_WINDOW_MS) {
    strikes = await store.addStrike(id, windowStart);
  }
  if (strikes === undefined) {
    // The strike window expired (or another request restarted it): start a new one.
    if (await store.restartStrikes(id, windowStart, nowMs)) strikes = 1;
    else strikes = await store.addStrike(id, (await store.get(id))?.strikeWindowStart ?? nowMs);
  }
  if (strikes === undefined || strikes <= policy.threshold) return undefined;
  const until = nowMs + policy.durationSeconds * 1000;
  await ban(store, keyId, shards, until, nowMs);
  return until;
}

/** Bans the key on every shard (an active ban is never shortened) and clears its strikes. */
export async function ban(
  store: LimiterStore,
  keyId: string,
  shards: readonly string[],
  untilMs: number,
  nowMs: number,
): Promise<void> {
  await Promise.all(shards.map((shard) => store.setKeyMarker(shard, keyId, 'ban', untilMs, nowMs)));
  await store.resetStrikes(keyItemId(keyId));
}
