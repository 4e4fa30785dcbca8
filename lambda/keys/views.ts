import type { components } from '../../contracts/openapi/control-api.js';
import type { PlanId, RateLimits } from '../../contracts/plans.js';
import { type AccountUsage, dayWindowEndMs, minuteWindowEndMs } from '../rate-limits/index.js';
import { type ApiKeyRecord, oldestKeyFirst } from './key-store.js';

// What the account service shows (openapi/control-api.yaml): never a secret, never a hash.
type Schemas = components['schemas'];
export type AccountView = Schemas['Account'];
export type KeyView = Schemas['Key'];
export type UsageView = Schemas['Usage'];

export const iso = (ms: number) => new Date(ms).toISOString();

/** A key record as it may be shown, with the limiter's last use (the record's own is kept at revocation) and ban. */
export function keyView(record: ApiKeyRecord, activity?: { lastUsedAt?: number; bannedUntil?: number }): KeyView {
  const lastUsedAt = activity?.lastUsedAt !== undefined ? iso(activity.lastUsedAt) : record.lastUsedAt;
  const bannedUntil = record.status === 'active' ? activity?.bannedUntil : undefined;
  return {
    keyId: record.keyId,
    name: record.name,
    prefix: record.prefix,
    last4: record.last4,
    status: record.status,
    createdAt: record.createdAt,
    ...(lastUsedAt !== undefined ? { lastUsedAt } : {}),
    ...(record.revokedAt ? { revokedAt: record.revokedAt } : {}),
    ...(bannedUntil !== undefined ? { bannedUntil: iso(bannedUntil) } : {}),
  };
}

/** The account's usage with a row per key, oldest key first. */
export function usageView(
  account: { accountId: string; plan: PlanId },
  limits: RateLimits,
  records: readonly ApiKeyRecord[],
  usage: AccountUsage,
): UsageView {
  const window = (used: number, limit: number, resetMs: number): Schemas['WindowUsage'] => ({
    used,
    limit,
    remaining: Math.max(0, limit - used),
    resetsAt: iso(resetMs),
  });
  const keys = records
    .map((record): Schemas['KeyUsage'] => {
      const key = usage.keys.get(record.keyId);
      return { ...keyView(record, key), used: { minute: key?.minute ?? 0, day: key?.day ?? 0 } };
    })
    .sort(oldestKeyFirst);
  return {
    accountId: account.accountId,
    plan: account.plan,
    limits,
    minute: window(usage.minute, limits.perMinute, minuteWindowEndMs(usage.windows.minute)),
    day: window(usage.day, limits.perDay, dayWindowEndMs(usage.windows.day)),
    limiterShards: usage.shards,
    keys,
  };
}
