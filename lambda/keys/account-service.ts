import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { type PlanId, type RuntimeConfig, type RateLimits } from '../../contracts/plans.js';
import { AccountLimits, type LimiterStore } from '../rate-limits/index.js';
import type { Clock } from '../shared/clock.js';
import type { AccountRecord, AccountStore } from './accounts.js';
import { displayParts, generateApiKey, hashApiKey } from './api-key-format.js';
import { type ApiKeyRecord, type KeyStore, oldestKeyFirst } from './key-store.js';
import type { InternalKey, UsagePlanGateway } from './usage-plan-gateway.js';
import { type AccountView, iso, type KeyView, keyView, type UsageView, usageView } from './views.js';
import { refuse } from '../shared/problem.js';
import { invalid, parsePlan, pendingView, settledBy } from './upgrade-requests.js';

export interface AccountServiceDeps {
  readonly accounts: AccountStore;
  readonly keys: KeyStore;
  readonly limiter: LimiterStore;
  readonly gateway: UsagePlanGateway;
  readonly clock: Clock;
  readonly config: RuntimeConfig;
}

const nameSchema = z.string().check(z.trim(), z.minLength(1), z.maxLength(100));
const limitsSchema = z.strictObject({
  perMinute: z.number().check(z.int(), z.positive()),
  perDay: z.number().check(z.int(), z.positive()),
});

function parseName(value: unknown): string {
  const parsed = nameSchema.safeParse(value);
  if (!parsed.success) throw invalid('name', 'must be a string of 1 to 100 characters');
  return parsed.data;
}

/** Custom limits belong to Enterprise only, and must be whole numbers with perDay ≥ perMinute. */
function parseLimits(plan: PlanId, value: unknown, config: RuntimeConfig): RateLimits | undefined {
  if (value === undefined) return plan === 'enterprise' ? config.plans.enterprise.limits : undefined;
  if (!config.plans[plan].customLimits) throw invalid('limits', `only Enterprise accounts have custom limits, not ${plan}`);
  const parsed = limitsSchema.safeParse(value);
  if (!parsed.success) throw invalid('limits', 'must be {"perMinute": n, "perDay": n} with whole numbers above 0');
  if (parsed.data.perDay < parsed.data.perMinute) throw invalid('limits', 'perDay must be at least perMinute');
  return parsed.data;
}

/** Seconds a revoked key stays refused by the limiter past the authorizers' cache TTL (their clocks may differ). */
export const RELEASE_MARGIN_SECONDS = 5;

/** A new account id: `acct_` and 20 random hex digits. */
export const newAccountId = () => `acct_${randomUUID().replaceAll('-', '').slice(0, 20)}`;

/** Accounts, plans and API keys: docs/operators/operations.md, "API keys and usage plans". */
export class AccountService {
  private readonly limits: AccountLimits;

  constructor(private readonly deps: AccountServiceDeps) {
    this.limits = new AccountLimits(deps.limiter);
  }

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
    const draft: AccountRecord = {
      accountId,
      name,
      plan,
      ...(limits && plan === 'enterprise' ? { limits } : {}),
      ...(gatewayUsagePlanId ? { gatewayUsagePlanId } : {}),
      createdAt: iso(this.deps.clock.now()),
    };
    const internalKey = await this.deps.gateway.createKey(accountId, this.usagePlanIdOf(draft), poolable(plan));
    const account: AccountRecord = { ...draft, ...bindingOf(internalKey) };
    try {
      await this.deps.accounts.create(account);
    } catch (error) {
      // Nothing refers to the internal key yet: delete it rather than leak it (it counts against the quota).
      if (internalKey) await this.deps.gateway.deleteKey(internalKey.id).catch(() => {});
      throw error;
    }
    await this.limits.provision(accountId, this.limitsOf(account), this.deps.clock.now());
    return this.accountView(account);
  }

  /** The account, created if it does not exist yet (a dashboard owner's first sign-in; a concurrent creation is fine). */
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
    const account = await this.withInternalKey(await this.account(accountId));
    const secret = generateApiKey();
    const record: ApiKeyRecord = {
      keyHash: hashApiKey(secret),
      keyId: `key_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
      accountId,
      name: keyName,
      ...displayParts(secret),
      status: 'active',
      plan: account.plan,
      ...(account.limits ? { limits: account.limits } : {}),
      // The account's internal key: the authorizer's one read of this record gives it.
      ...bindingOf(internalKeyOf(account)),
      createdAt: iso(this.deps.clock.now()),
    };
    // The shards first (an account whose creation stopped before provisioning gets them now): the
    // key's first request then counts on its account's budget.
    await this.limits.ensureProvisioned(accountId, this.limitsOf(account), this.deps.clock.now());
    await this.deps.keys.put(record);
    return { secret, key: keyView(record) };
  }

  async listKeys(accountId: string): Promise<KeyView[]> {
    await this.account(accountId);
    const records = await this.deps.keys.listByAccount(accountId);
    const usage = await this.limits.usage(accountId, this.deps.clock.now());
    return records
      .map((record) => keyView(record, usage.keys.get(record.keyId)))
      .sort(oldestKeyFirst);
  }

  /** Refused by the limiter from the next request on, by the authorizer within its cache TTL. */
  async revokeKey(accountId: string, keyId: string): Promise<KeyView> {
    const record = await this.key(accountId, keyId);
    if (record.status === 'revoked') return keyView(record);
    const nowMs = this.deps.clock.now();
    const until = nowMs + (this.deps.config.auth.keyCacheSeconds + RELEASE_MARGIN_SECONDS) * 1000;
    const lastUsedMs = await this.limits.markRevoked(accountId, keyId, until, nowMs);
    const changes = {
      status: 'revoked' as const,
      revokedAt: iso(nowMs),
      ...(lastUsedMs !== undefined ? { lastUsedAt: iso(lastUsedMs) } : {}),
    };
    await this.deps.keys.update(record.keyHash, changes);
    return keyView({ ...record, ...changes });
  }

  /** Moves the account to a plan; each step is idempotent, so a re-run completes an interrupted change. */
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
    const draft: AccountRecord = {
      accountId,
      name: account.name,
      plan,
      ...(plan === 'enterprise' && limits ? { limits } : {}),
      ...(plan === 'enterprise' && gatewayUsagePlanId ? { gatewayUsagePlanId } : {}),
      ...bindingOf(internalKeyOf(account)),
      createdAt: account.createdAt,
      updatedAt: iso(this.deps.clock.now()),
    };
    // Approving a request is changing the plan (`plans set`): the request is settled with it.
    const upgradeRequest = settledBy(account.upgradeRequest, plan, iso(this.deps.clock.now()));
    const from = this.usagePlanIdOf(account);
    const to = this.usagePlanIdOf(draft);
    // A move keeps the internal key (its id and value): the records' copies stay right.
    if (account.gatewayKeyId && from !== to) await this.deps.gateway.moveKey(account.gatewayKeyId, from, to);
    // A pooled account moving to a plan that never pools gets its own internal key.
    const created = !account.gatewayKeyId && !poolable(plan)
      ? await this.deps.gateway.createKey(accountId, to, false)
      : undefined;
    const next: AccountRecord = { ...draft, ...bindingOf(created), ...(upgradeRequest ? { upgradeRequest } : {}) };
    await this.limits.provision(accountId, this.limitsOf(next), this.deps.clock.now());
    for (const key of await this.deps.keys.listByAccount(accountId)) {
      await this.deps.keys.update(key.keyHash, {
        plan,
        limits: next.limits,
        ...(key.status === 'active' ? bindingOf(created) : {}),
      });
    }
    // Deleted before the account forgets it, so an interrupted change is completed by a re-run.
    if (account.gatewayUsagePlanId && plan !== 'enterprise') {
      await this.deps.gateway.deleteAccountPlan(account.gatewayUsagePlanId);
    }
    await this.deps.accounts.replace(next);
    return this.accountView(next);
  }

  async liftBan(accountId: string, keyId: string): Promise<{ keyId: string; wasBanned: boolean }> {
    await this.key(accountId, keyId);
    const wasBanned = await this.limits.liftBan(accountId, keyId, this.deps.clock.now());
    return { keyId, wasBanned };
  }

  async usage(accountId: string): Promise<UsageView> {
    const account = await this.account(accountId);
    const [records, usage] = await Promise.all([
      this.deps.keys.listByAccount(accountId),
      this.limits.usage(accountId, this.deps.clock.now()),
    ]);
    return usageView(account, usage.limits ?? this.limitsOf(account), records, usage);
  }

  /** The account with an internal key of its own, created now if it has none (pooled) and may have one. */
  private async withInternalKey(account: AccountRecord): Promise<AccountRecord> {
    if (account.gatewayKeyId) return account;
    const usagePlanId = this.usagePlanIdOf(account);
    const created = await this.deps.gateway.createKey(account.accountId, usagePlanId, poolable(account.plan));
    if (!created) return account;
    const next = { ...account, ...bindingOf(created) };
    await this.deps.accounts.replace(next);
    return next;
  }

  private async account(accountId: string): Promise<AccountRecord> {
    const account = await this.deps.accounts.get(accountId);
    if (!account) throw refuse('account_not_found', `No account ${accountId}.`, 404);
    return account;
  }

  private async key(accountId: string, keyId: string): Promise<ApiKeyRecord> {
    await this.account(accountId);
    const record = (await this.deps.keys.listByAccount(accountId)).find((k) => k.keyId === keyId);
    if (!record) throw refuse('key_not_found', `No key ${keyId} in account ${accountId}.`, 404);
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
      upgradeRequest: pendingView(account),
    };
  }
}

/** The record attributes of an internal key: its id and value, stored together. */
const bindingOf = (key?: InternalKey) => (key ? { gatewayKeyId: key.id, gatewayKeyValue: key.value } : {});

/** The account's internal key, when it has one with its value. */
const internalKeyOf = (account: AccountRecord): InternalKey | undefined =>
  account.gatewayKeyId && account.gatewayKeyValue
    ? { id: account.gatewayKeyId, value: account.gatewayKeyValue }
    : undefined;

/** Free and Pro accounts may share their plan's pooled internal key once the API keys quota is reached. */
const poolable = (plan: PlanId) => plan === 'free' || plan === 'pro';
