import type { PlanId, RateLimits } from '../../contracts/plans.js';
import { type AccountUsage, dayWindowEndMs, minuteWindowEndMs } from '../rate-limits/index.js';
import { type ApiKeyRecord, oldestKeyFirst } from './key-store.js';
import type { UpgradeRequestView } from './upgrade-requests.js';

// What the account service shows of accounts, keys and usage: never a secret, never a hash.

export interface AccountView {
  readonly accountId: string;
  readonly name: string;
  readonly plan: PlanId;
  /** The limits in force: the plan's, or the account's agreed ones (Enterprise). */
  readonly limits: RateLimits;
  readonly customLimits: boolean;
  readonly createdAt: string;
  readonly updatedAt?: string;
  /** The owner's request for a higher plan while no operator has acted on it; null otherwise. */
  readonly upgradeRequest: UpgradeRequestView | null;
}

export interface KeyView {
  readonly keyId: string;
  readonly name: string;
  readonly prefix: string;
  readonly last4: string;
  readonly status: 'active' | 'revoked';
  readonly createdAt: string;
  readonly lastUsedAt?: string;
  readonly revokedAt?: string;
  /** While an active key is banned: when the ban ends (bans are per key). */
  readonly bannedUntil?: string;
}

export interface WindowUsageView {
  readonly used: number;
  readonly limit: number;
  readonly remaining: number;
  readonly resetsAt: string;
}

/** A key's share of its account's usage in the current windows. */
export interface KeyUsageView extends KeyView {
  readonly used: { readonly minute: number; readonly day: number };
}

export interface UsageView {
  readonly accountId: string;
  readonly plan: PlanId;
  readonly limits: RateLimits;
  readonly minute: WindowUsageView;
  readonly day: WindowUsageView;
  /** How many limiter items hold the account's budget (1 up to 30,000 requests a minute). */
  readonly limiterShards: number;
  /** Every key of the account, revoked ones included (they drew on the same budget). */
  readonly keys: readonly KeyUsageView[];
}

const iso = (ms: number) => new Date(ms).toISOString();

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
  const window = (used: number, limit: number, resetMs: number): WindowUsageView => ({
    used,
    limit,
    remaining: Math.max(0, limit - used),
    resetsAt: iso(resetMs),
  });
  const keys = records
    .map((record): KeyUsageView => {
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
