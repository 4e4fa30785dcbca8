import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { PLAN_IDS, type PlanId, type PlatformConfig, type RateLimits } from '../../lib/config/index.js';
import type { LimiterStore } from '../rate-limits/limiter-store.js';
import { keySubjectId } from '../rate-limits/rate-limiter.js';
import { dayWindowEndMs, minuteWindowEndMs, windowsAt } from '../rate-limits/windows.js';
import type { Clock } from '../shared/clock.js';
import type { AccountRecord, AccountStore } from './accounts.js';
import { displayParts, generateApiKey, hashApiKey } from './api-key-format.js';
import type { ApiKeyRecord, KeyStore } from './key-store.js';
import type { InternalKey, UsagePlanGateway } from './usage-plan-gateway.js';
import { backfillUsageKeys, type UsageKeyBackfill } from './usage-key-backfill.js';
import { type AccountView, type KeyUsageView, type KeyView, keyView, type UsageView } from './views.js';

export type ControlPlaneErrorCode = 'invalid_request' | 'account_not_found' | 'key_not_found';

/** A refusal of the control plane, with the HTTP status its API answers. */
export class ControlPlaneError extends Error {
  constructor(
    readonly code: ControlPlaneErrorCode,
    message: string,
    readonly status: number,
    readonly errors?: ReadonlyArray<{ field: string; message: string }>,
  ) {
    super(message);
    this.name = 'ControlPlaneError';
  }
}

export type { AccountView, KeyUsageView, KeyView, UsageView, WindowUsageView } from './views.js';

export interface ControlPlaneDeps {
  readonly accounts: AccountStore;
  readonly keys: KeyStore;
  readonly limiter: LimiterStore;
  readonly gateway: UsagePlanGateway;
  readonly clock: Clock;
  readonly config: PlatformConfig;
}

const nameSchema = z.string().check(z.trim(), z.minLength(1), z.maxLength(100));
const limitsSchema = z.strictObject({
  perMinute: z.number().check(z.int(), z.positive()),
  perDay: z.number().check(z.int(), z.positive()),
});

function invalid(field: string, message: string): ControlPlaneError {
  return new ControlPlaneError('invalid_request', `${field}: ${message}`, 400, [{ field, message }]);
}

function parseName(value: unknown, field = 'name'): string {
  const parsed = nameSchema.safeParse(value);
  if (!parsed.success) throw invalid(field, 'must be a string of 1 to 100 characters');
  return parsed.data;
}

function parsePlan(value: unknown): PlanId {
  if (typeof value !== 'string' || !(PLAN_IDS as readonly string[]).includes(value)) {
    throw invalid('plan', `must be one of ${PLAN_IDS.join(', ')}`);
  }
  return value as PlanId;
}

/** Custom limits belong to Enterprise only, and must be whole numbers with perDay ≥ perMinute. */
function parseLimits(plan: PlanId, value: unknown, config: PlatformConfig): RateLimits | undefined {
  if (value === undefined) return plan === 'enterprise' ? config.plans.enterprise.limits : undefined;
  if (!config.plans[plan].customLimits) throw invalid('limits', `only Enterprise accounts have custom limits, not ${plan}`);
  const parsed = limitsSchema.safeParse(value);
  if (!parsed.success) throw invalid('limits', 'must be {"perMinute": n, "perDay": n} with whole numbers above 0');
  if (parsed.data.perDay < parsed.data.perMinute) throw invalid('limits', 'perDay must be at least perMinute');
  return parsed.data;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Seconds added to the authorizer's key cache before a revoked key's internal key is deleted:
 * clocks of the control plane and of the authorizers may differ by this much.
 */
export const RELEASE_MARGIN_SECONDS = 5;

/** A new account id: `acct_` and 20 random hex digits. */
export const newAccountId = () => `acct_${randomUUID().replaceAll('-', '').slice(0, 20)}`;

/**
 * Accounts, plans and API keys (design §2, keys & plans control plane). The same logic runs
 * behind the local platform's control API, in the operator CLI against a deployed stack, and in
 * the dashboard's API. Keys are returned in clear exactly once, by `createKey`.
 */
export class ControlPlane {
  constructor(private readonly deps: ControlPlaneDeps) {}

  async createAccount(input: {
    name: unknown;
    plan: unknown;
    limits?: unknown;
    accountId?: string;
  }): Promise<AccountView> {
    const name = parseName(input.name);
    const plan = parsePlan(input.plan);
    const limits = parseLimits(plan, input.limits, this.deps.config);
    const accountId = input.accountId ?? newAccountId();
    const gatewayUsagePlanId = plan === 'enterprise' && limits
      ? await this.deps.gateway.createAccountPlan(accountId, limits)
      : undefined;
    const account: AccountRecord = {
      accountId,
      name,
      plan,
      ...(limits && plan === 'enterprise' ? { limits } : {}),
      ...(gatewayUsagePlanId ? { gatewayUsagePlanId } : {}),
      createdAt: iso(this.deps.clock.now()),
    };
    await this.deps.accounts.create(account);
    return this.accountView(account);
  }

  /**
   * The account with this id, created with the given name and plan if it does not exist yet
   * (a dashboard owner's first sign-in); a concurrent creation of the same id is not an error.
   */
  async ensureAccount(input: { accountId: string; name: string; plan: 'free' | 'pro' | 'business' }): Promise<AccountView> {
    const existing = await this.deps.accounts.get(input.accountId);
    if (existing) return this.accountView(existing);
    try {
      return await this.createAccount(input);
    } catch (error) {
      const raced = await this.deps.accounts.get(input.accountId);
      if (raced) return this.accountView(raced);
      throw error;
    }
  }

  async getAccount(accountId: string): Promise<AccountView> {
    return this.accountView(await this.account(accountId));
  }

  /** Creates a key; the secret is in the result and nowhere else, ever. */
  async createKey(accountId: string, name: unknown): Promise<{ secret: string; key: KeyView }> {
    const keyName = parseName(name);
    const account = await this.account(accountId);
    // Frees the quota the account's revoked keys still hold, before taking from it.
    await this.releaseInternalKeys(await this.deps.keys.listByAccount(accountId));
    const secret = generateApiKey();
    const keyId = `key_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    const limits = this.limitsOf(account);
    const internalKey = await this.deps.gateway.createKey(
      keyId,
      this.usagePlanIdOf(account),
      account.plan === 'free' || account.plan === 'pro',
    );
    try {
      return await this.storeKey(secret, keyId, keyName, account, limits, internalKey);
    } catch (error) {
      // Nothing refers to the internal key yet: delete it rather than leak it (it counts against the quota).
      if (internalKey) await this.deps.gateway.deleteKey(internalKey.id).catch(() => {});
      throw error;
    }
  }

  private async storeKey(
    secret: string,
    keyId: string,
    keyName: string,
    account: AccountRecord,
    limits: RateLimits,
    internalKey: InternalKey | undefined,
  ): Promise<{ secret: string; key: KeyView }> {
    const record: ApiKeyRecord = {
      keyHash: hashApiKey(secret),
      keyId,
      accountId: account.accountId,
      name: keyName,
      ...displayParts(secret),
      status: 'active',
      plan: account.plan,
      ...(account.limits ? { limits: account.limits } : {}),
      ...bindingOf(internalKey),
      createdAt: iso(this.deps.clock.now()),
    };
    // The limiter item first: a key record without one would be refused as revoked.
    await this.deps.limiter.activateKey(keySubjectId(keyId), limits);
    await this.deps.keys.put(record);
    return { secret, key: keyView(record) };
  }

  async listKeys(accountId: string): Promise<KeyView[]> {
    await this.account(accountId);
    const records = await this.deps.keys.listByAccount(accountId);
    const items = await Promise.all(records.map((r) => this.deps.limiter.get(keySubjectId(r.keyId))));
    return records
      .map((record, i) => keyView(record, items[i]?.lastUsedAt))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
  }

  /** Refused by the limiter from the next request on; by the authorizer within its cache TTL. */
  async revokeKey(accountId: string, keyId: string): Promise<KeyView> {
    await this.account(accountId);
    const records = await this.deps.keys.listByAccount(accountId);
    const record = records.find((k) => k.keyId === keyId);
    if (!record) throw new ControlPlaneError('key_not_found', `No key ${keyId} in account ${accountId}.`, 404);
    let revoked = record;
    if (record.status !== 'revoked') {
      const revokedAt = iso(this.deps.clock.now());
      // Refused from the next request on, before anything that could fail.
      await this.deps.limiter.revokeKey(keySubjectId(keyId));
      await this.deps.keys.update(record.keyHash, { status: 'revoked', revokedAt });
      revoked = { ...record, status: 'revoked', revokedAt };
    }
    await this.releaseInternalKeys(records.map((k) => (k.keyId === keyId ? revoked : k)));
    return keyView(revoked);
  }

  /**
   * Deletes the internal keys of revoked keys (they count against the API key quota) once no
   * authorizer can still hold the key's active record: until then a request with the key still
   * passes the usage-plan backstop and gets the limiter's 401 with rate-limit headers, not API
   * Gateway's own. Run by the account's key changes (create, revoke, plan change); the record
   * keeps the key's id until it is deleted, so a failed delete is completed by the next one.
   */
  private async releaseInternalKeys(records: readonly ApiKeyRecord[]): Promise<ApiKeyRecord[]> {
    const { keyCacheSeconds } = this.deps.config.auth;
    const graceMs = keyCacheSeconds > 0 ? (keyCacheSeconds + RELEASE_MARGIN_SECONDS) * 1000 : 0;
    const now = this.deps.clock.now();
    const after: ApiKeyRecord[] = [];
    for (const record of records) {
      const { gatewayKeyId, gatewayKeyValue: _value, ...rest } = record;
      const revokedAtMs = record.revokedAt ? Date.parse(record.revokedAt) : 0;
      if (record.status !== 'revoked' || !gatewayKeyId || revokedAtMs + graceMs > now) {
        after.push(record);
        continue;
      }
      await this.deps.gateway.deleteKey(gatewayKeyId);
      await this.deps.keys.update(record.keyHash, { gatewayKeyId: undefined, gatewayKeyValue: undefined });
      after.push(rest);
    }
    return after;
  }

  /**
   * Moves the account to a plan (Enterprise with its agreed limits). Each step is idempotent, so
   * an interrupted change is completed by running it again.
   */
  async setPlan(accountId: string, input: { plan: unknown; limits?: unknown }): Promise<AccountView> {
    const account = await this.account(accountId);
    const plan = parsePlan(input.plan);
    // An Enterprise account keeps its agreed limits unless new ones are given.
    const limits =
      input.limits === undefined && plan === 'enterprise' && account.limits
        ? account.limits
        : parseLimits(plan, input.limits, this.deps.config);

    let gatewayUsagePlanId = account.gatewayUsagePlanId;
    if (plan === 'enterprise' && limits) {
      if (gatewayUsagePlanId) await this.deps.gateway.updateAccountPlan(gatewayUsagePlanId, limits);
      else gatewayUsagePlanId = await this.deps.gateway.createAccountPlan(accountId, limits);
    }
    const next: AccountRecord = {
      accountId,
      name: account.name,
      plan,
      ...(plan === 'enterprise' && limits ? { limits } : {}),
      ...(plan === 'enterprise' && gatewayUsagePlanId ? { gatewayUsagePlanId } : {}),
      createdAt: account.createdAt,
      updatedAt: iso(this.deps.clock.now()),
    };

    const from = this.usagePlanIdOf(account);
    const to = this.usagePlanIdOf(next);
    const nextLimits = this.limitsOf(next);
    const records = await this.releaseInternalKeys(await this.deps.keys.listByAccount(accountId));
    // A revoked key whose internal key is not released yet moves with the others: it stays valid
    // until then, and a usage plan is deleted only once no key is bound to it.
    for (const key of records) {
      if (key.status === 'revoked' && key.gatewayKeyId && from !== to) {
        await this.deps.gateway.moveKey(key.gatewayKeyId, from, to);
      }
    }
    const keys = records.filter((k) => k.status === 'active');
    const poolable = plan === 'free' || plan === 'pro';
    for (const key of keys) {
      // A move keeps the internal key (its id and value): the record's stored value stays right.
      if (key.gatewayKeyId && from !== to) await this.deps.gateway.moveKey(key.gatewayKeyId, from, to);
      // A pooled key moving to a plan that never pools gets its own internal key.
      const created = !key.gatewayKeyId && !poolable
        ? await this.deps.gateway.createKey(key.keyId, to, false)
        : undefined;
      await this.deps.limiter.setLimits(keySubjectId(key.keyId), nextLimits);
      await this.deps.keys.update(key.keyHash, { plan, limits: next.limits, ...bindingOf(created) });
    }
    // Deleted before the account forgets it, so an interrupted change is completed by a re-run.
    if (account.gatewayUsagePlanId && plan !== 'enterprise') {
      await this.deps.gateway.deleteAccountPlan(account.gatewayUsagePlanId);
    }
    await this.deps.accounts.replace(next);
    return this.accountView(next);
  }

  /**
   * Stores the value of each key's internal key where the record lacks it (records created before
   * values were stored), off the request path; the authorizer meters those keys on their plan's
   * pooled key until then. Idempotent: a run fills only what is still missing.
   */
  async backfillUsageKeys(accountId?: string): Promise<UsageKeyBackfill> {
    if (accountId !== undefined) await this.account(accountId);
    const records = accountId === undefined
      ? await this.deps.keys.listAll()
      : await this.deps.keys.listByAccount(accountId);
    return backfillUsageKeys({ keys: this.deps.keys, gateway: this.deps.gateway }, records, accountId);
  }

  async liftBan(accountId: string, keyId: string): Promise<{ keyId: string; wasBanned: boolean }> {
    await this.key(accountId, keyId);
    const item = await this.deps.limiter.get(keySubjectId(keyId));
    const wasBanned = item?.banUntil !== undefined && item.banUntil > this.deps.clock.now();
    await this.deps.limiter.liftBan(keySubjectId(keyId));
    return { keyId, wasBanned };
  }

  /** Current minute and day counts of every key against its limits. */
  async usage(accountId: string): Promise<UsageView> {
    const account = await this.account(accountId);
    const records = await this.deps.keys.listByAccount(accountId);
    const nowMs = this.deps.clock.now();
    const windows = windowsAt(nowMs);
    const limits = this.limitsOf(account);
    const keys = await Promise.all(
      records.map(async (record): Promise<KeyUsageView> => {
        const item = await this.deps.limiter.get(keySubjectId(record.keyId));
        const minuteLimit = item?.minuteLimit ?? limits.perMinute;
        const dayLimit = item?.dayLimit ?? limits.perDay;
        const minuteUsed = item?.minuteWindow === windows.minute ? item.minuteCount : 0;
        const dayUsed = item?.dayWindow === windows.day ? item.dayCount : 0;
        return {
          ...keyView(record, item?.lastUsedAt),
          minute: {
            used: minuteUsed,
            limit: minuteLimit,
            remaining: Math.max(0, minuteLimit - minuteUsed),
            resetsAt: iso(minuteWindowEndMs(windows.minute)),
          },
          day: {
            used: dayUsed,
            limit: dayLimit,
            remaining: Math.max(0, dayLimit - dayUsed),
            resetsAt: iso(dayWindowEndMs(windows.day)),
          },
          ...(item?.banUntil !== undefined && item.banUntil > nowMs ? { bannedUntil: iso(item.banUntil) } : {}),
        };
      }),
    );
    return { accountId, plan: account.plan, limits, keys: keys.sort((a, b) => a.createdAt.localeCompare(b.createdAt)) };
  }

  private async account(accountId: string): Promise<AccountRecord> {
    const account = await this.deps.accounts.get(accountId);
    if (!account) throw new ControlPlaneError('account_not_found', `No account ${accountId}.`, 404);
    return account;
  }

  private async key(accountId: string, keyId: string): Promise<ApiKeyRecord> {
    await this.account(accountId);
    const record = (await this.deps.keys.listByAccount(accountId)).find((k) => k.keyId === keyId);
    if (!record) throw new ControlPlaneError('key_not_found', `No key ${keyId} in account ${accountId}.`, 404);
    return record;
  }

  private limitsOf(account: AccountRecord): RateLimits {
    return account.limits ?? this.deps.config.plans[account.plan].limits;
  }

  private usagePlanIdOf(account: AccountRecord): string {
    if (account.plan === 'enterprise') {
      if (!account.gatewayUsagePlanId) throw new Error(`enterprise account ${account.accountId} has no usage plan`);
      return account.gatewayUsagePlanId;
    }
    return this.deps.gateway.standardPlanId(account.plan);
  }

  private accountView(account: AccountRecord): AccountView {
    return {
      accountId: account.accountId,
      name: account.name,
      plan: account.plan,
      limits: this.limitsOf(account),
      customLimits: account.limits !== undefined,
      createdAt: account.createdAt,
      ...(account.updatedAt ? { updatedAt: account.updatedAt } : {}),
    };
  }
}

/** The record attributes of an internal key: its id and value, stored together. */
const bindingOf = (key: InternalKey | undefined) => (key ? { gatewayKeyId: key.id, gatewayKeyValue: key.value } : {});
