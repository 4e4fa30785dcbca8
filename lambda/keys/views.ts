import type { PlanId, RateLimits } from '../../lib/config/index.js';
import type { ApiKeyRecord } from './key-store.js';

// What the control plane shows of accounts, keys and usage: never a secret, never a hash.

export interface AccountView {
  readonly accountId: string;
  readonly name: string;
  readonly plan: PlanId;
  /** The limits in force: the plan's, or the account's agreed ones (Enterprise). */
  readonly limits: RateLimits;
  readonly customLimits: boolean;
  readonly createdAt: string;
  readonly updatedAt?: string;
}

/** A key as it may be shown after creation: never the secret, never its hash. */
export interface KeyView {
  readonly keyId: string;
  readonly name: string;
  readonly prefix: string;
  readonly last4: string;
  readonly status: 'active' | 'revoked';
  readonly createdAt: string;
  readonly lastUsedAt?: string;
  readonly revokedAt?: string;
}

export interface WindowUsageView {
  readonly used: number;
  readonly limit: number;
  readonly remaining: number;
  readonly resetsAt: string;
}

export interface KeyUsageView extends KeyView {
  readonly minute: WindowUsageView;
  readonly day: WindowUsageView;
  readonly bannedUntil?: string;
}

export interface UsageView {
  readonly accountId: string;
  readonly plan: PlanId;
  readonly limits: RateLimits;
  readonly keys: readonly KeyUsageView[];
}

/** A key record as it may be shown. */
export function keyView(record: ApiKeyRecord, lastUsedAtMs?: number): KeyView {
  return {
    keyId: record.keyId,
    name: record.name,
    prefix: record.prefix,
    last4: record.last4,
    status: record.status,
    createdAt: record.createdAt,
    ...(lastUsedAtMs !== undefined ? { lastUsedAt: new Date(lastUsedAtMs).toISOString() } : {}),
    ...(record.revokedAt ? { revokedAt: record.revokedAt } : {}),
  };
}
