import type { PlanId, RateLimits } from '../../contracts/plans.js';
import { type AccountLimits, keyItemId, type LimiterStore, windowsAt } from '../rate-limits/index.js';
import type { Clock } from '../shared/clock.js';
import { isConditionFailure } from '../shared/dynamodb.js';
import type { AccountRecord, AccountStore } from './accounts.js';
import { type ApiKeyChanges, type ApiKeyRecord, type KeyStore, oldestKeyFirst } from './key-store.js';
import type { InternalKey, UsagePlanGateway } from './usage-plan-gateway.js';

/** What the migration found and did for one account. */
export interface AccountMigration {
  readonly accountId: string;
  /** The account's internal key: already there, adopted from one of its keys, created, or none (its plan's pool). */
  readonly internalKey: 'kept' | 'adopted' | 'created' | 'pooled';
  /** Keys whose record now holds the account's internal key. */
  readonly keysRebound: readonly string[];
  /** Keys whose limiter item of the per-key format was moved into the account's shards. */
  readonly limiterItemsMoved: readonly string[];
  /** Keys' own internal keys deleted by this run. */
  readonly formerKeysDeleted: readonly string[];
  /** Keys' own internal keys still in use by authorizer caches: deleted by a run after `deleteAfter`. */
  readonly formerKeysPending: ReadonlyArray<{ readonly keyId: string; readonly deleteAfter: string }>;
  /** Key records that changed during the run (left alone: run again). */
  readonly changed: readonly string[];
}

export interface MigrationReport {
  /** The account migrated; absent when every account with keys was. */
  readonly accountId?: string;
  readonly accounts: number;
  readonly internalKeys: Readonly<Record<AccountMigration['internalKey'], number>>;
  readonly keysRebound: number;
  readonly limiterItemsMoved: number;
  readonly formerKeysDeleted: number;
  readonly formerKeysPending: ReadonlyArray<{
    readonly accountId: string;
    readonly keyId: string;
    readonly deleteAfter: string;
  }>;
  readonly changed: readonly string[];
  readonly details: readonly AccountMigration[];
}

export interface MigrationDeps {
  readonly accounts: AccountStore;
  readonly keys: KeyStore;
  readonly limiter: LimiterStore;
  readonly accountLimits: AccountLimits;
  readonly gateway: UsagePlanGateway;
  readonly clock: Clock;
  /** How long an authorizer may still hold a key record: its cache TTL plus clock skew. */
  readonly graceMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const poolable = (plan: PlanId) => plan === 'free' || plan === 'pro';

/**
 * Moves one account created before limits and internal keys were per account, without losing
 * anything; every step is idempotent, so a run that stops is completed by running it again.
 * 1. Shards: the account's limiter items are provisioned for its limits.
 * 2. Limiter items: each key's item of the per-key format gives its counts of the current minute
 *    and day to the account (so the account's budget knows what its keys already spent), its ban
 *    and recent revocation become markers, its last use the key's; strikes stay where they are.
 *    The item is marked migrated after its counts are added (a run stopped in between adds them
 *    twice when run again: that can only refuse more, never admit more).
 * 3. The internal key: the account adopts its oldest active key's own internal key (already in
 *    the right usage plan, no new API key), or gets a new one; every key record then holds it.
 * 4. The keys' other internal keys are deleted once no authorizer can still hold a record that
 *    named them (a later run deletes the ones still pending).
 */
export async function migrateAccount(
  deps: MigrationDeps,
  target: { account: AccountRecord; limits: RateLimits; usagePlanId: string; keys: readonly ApiKeyRecord[] },
): Promise<AccountMigration> {
  const { account, keys } = target;
  const nowMs = deps.clock.now();
  await deps.accountLimits.ensureProvisioned(account.accountId, target.limits, nowMs);
  const limiterItemsMoved: string[] = [];
  for (const record of keys) {
    if (await moveLimiterItem(deps, record, nowMs)) limiterItemsMoved.push(record.keyId);
  }

  const { key, how } = await internalKeyOf(deps, account, target.usagePlanId, keys);
  if (key && (account.gatewayKeyId !== key.id || account.gatewayKeyValue !== key.value)) {
    await deps.accounts.replace({ ...account, gatewayKeyId: key.id, gatewayKeyValue: key.value });
  }
  const keysRebound: string[] = [];
  const changed: string[] = [];
  const current: ApiKeyRecord[] = [];
  for (const record of keys) {
    if (!key || (record.gatewayKeyId === key.id && record.gatewayKeyValue === key.value)) {
      current.push(record);
      continue;
    }
    const former = record.gatewayKeyId !== undefined && record.gatewayKeyId !== key.id && !record.formerGatewayKeyId
      ? record.gatewayKeyId
      : undefined;
    // A revoked key's own internal key has been out of use since its revocation.
    const retiredAt = record.status === 'revoked' && record.revokedAt ? record.revokedAt : iso(nowMs);
    const changes: ApiKeyChanges = {
      gatewayKeyId: key.id,
      gatewayKeyValue: key.value,
      ...(former ? { formerGatewayKeyId: former, formerGatewayKeyRetiredAt: retiredAt } : {}),
    };
    try {
      const expected = record.gatewayKeyId ? { gatewayKeyId: record.gatewayKeyId } : undefined;
      await deps.keys.update(record.keyHash, changes, expected);
      keysRebound.push(record.keyId);
      current.push({ ...record, ...changes });
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      changed.push(record.keyId);
    }
  }

  const formerKeysDeleted: string[] = [];
  const formerKeysPending: Array<{ keyId: string; deleteAfter: string }> = [];
  for (const record of current) {
    if (!record.formerGatewayKeyId) continue;
    const deleteAfterMs = Date.parse(record.formerGatewayKeyRetiredAt ?? iso(nowMs)) + deps.graceMs;
    if (deleteAfterMs > nowMs) {
      formerKeysPending.push({ keyId: record.keyId, deleteAfter: iso(deleteAfterMs) });
      continue;
    }
    await deps.gateway.deleteKey(record.formerGatewayKeyId);
    await deps.keys.update(record.keyHash, { formerGatewayKeyId: undefined, formerGatewayKeyRetiredAt: undefined });
    formerKeysDeleted.push(record.formerGatewayKeyId);
  }
  return {
    accountId: account.accountId,
    internalKey: how,
    keysRebound,
    limiterItemsMoved,
    formerKeysDeleted,
    formerKeysPending,
    changed,
  };
}

/** Moves a key's limiter item of the per-key format into its account's shards; false if there is none left to move. */
async function moveLimiterItem(deps: MigrationDeps, record: ApiKeyRecord, nowMs: number): Promise<boolean> {
  const item = await deps.limiter.get(keyItemId(record.keyId));
  // Items of the per-key format always have a status; new key items hold strikes only.
  if (!item || item.status === undefined || item.migratedAt !== undefined) return false;
  const windows = windowsAt(nowMs);
  const counts = {
    minute: item.minute?.window === windows.minute ? item.minute.count : 0,
    day: item.day?.window === windows.day ? item.day.count : 0,
  };
  await deps.accountLimits.addMigratedCounts(record.accountId, record.keyId, counts, windows, item.lastUsedAt);
  if (item.banUntil !== undefined && item.banUntil > nowMs) {
    await deps.accountLimits.ban(record.accountId, record.keyId, item.banUntil, nowMs);
  }
  const revokedUntil = record.revokedAt ? Date.parse(record.revokedAt) + deps.graceMs : undefined;
  if (record.status === 'revoked' && revokedUntil !== undefined && revokedUntil > nowMs) {
    await deps.accountLimits.markRevoked(record.accountId, record.keyId, revokedUntil, nowMs);
  }
  return deps.limiter.markMigrated(keyItemId(record.keyId), nowMs);
}

/** The account's internal key: its own, else its oldest active key's (adopted), else a new one (none when pooled). */
async function internalKeyOf(
  deps: MigrationDeps,
  account: AccountRecord,
  usagePlanId: string,
  keys: readonly ApiKeyRecord[],
): Promise<{ key: InternalKey | undefined; how: AccountMigration['internalKey'] }> {
  if (account.gatewayKeyId && account.gatewayKeyValue) {
    return { key: { id: account.gatewayKeyId, value: account.gatewayKeyValue }, how: 'kept' };
  }
  const candidates = keys
    .filter((k) => k.status === 'active' && k.gatewayKeyId)
    .sort(oldestKeyFirst);
  for (const candidate of candidates) {
    const id = candidate.gatewayKeyId as string;
    // Records from before values were stored have the id only: read the value (off the request path).
    const value = candidate.gatewayKeyValue ?? (await deps.gateway.keyValue(id));
    if (value) return { key: { id, value }, how: 'adopted' };
  }
  const created = await deps.gateway.createKey(account.accountId, usagePlanId, poolable(account.plan));
  return { key: created, how: created ? 'created' : 'pooled' };
}

export function summarize(results: readonly AccountMigration[], accountId?: string): MigrationReport {
  const count = (how: AccountMigration['internalKey']) => results.filter((r) => r.internalKey === how).length;
  return {
    ...(accountId !== undefined ? { accountId } : {}),
    accounts: results.length,
    internalKeys: { kept: count('kept'), adopted: count('adopted'), created: count('created'), pooled: count('pooled') },
    keysRebound: results.reduce((n, r) => n + r.keysRebound.length, 0),
    limiterItemsMoved: results.reduce((n, r) => n + r.limiterItemsMoved.length, 0),
    formerKeysDeleted: results.reduce((n, r) => n + r.formerKeysDeleted.length, 0),
    formerKeysPending: results.flatMap((r) => r.formerKeysPending.map((p) => ({ accountId: r.accountId, ...p }))),
    changed: results.flatMap((r) => r.changed),
    details: results,
  };
}
