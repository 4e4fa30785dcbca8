import { randomBytes, randomUUID } from 'node:crypto';
import { backstopFor, usageIdentifierBackstop, type PlatformConfig, type RateLimits } from '../lib/config/index.js';
import type { AccountRecord } from '../lambda/keys/accounts.js';
import { POOLED_USAGE_KEY_NAMES, type PooledUsageKeys } from '../lambda/keys/authorize.js';
import type { InternalKey, UsagePlanGateway } from '../lambda/keys/usage-plan-gateway.js';
import { DAY_MS } from '../lambda/rate-limits/windows.js';
import type { Clock } from '../lambda/shared/clock.js';

/**
 * API Gateway's usage plans (per standard plan, anonymous, per Enterprise account) as the local front applies
 * them: a token bucket and a daily quota per API key, metering every request that reaches them (the backstop).
 */
export class UsagePlans implements UsagePlanGateway {
  private readonly plans = new Map<string, ReturnType<typeof backstopFor>>();
  private readonly keys = new Map<string, { value: string; planId: string; name: string }>();
  private readonly planOfValue = new Map<string, string>();
  private readonly buckets = new Map<string, { tokens: number; atMs: number; day: number; used: number }>();
  private readonly pooled: PooledUsageKeys;

  constructor(
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {
    for (const plan of POOLED_USAGE_KEY_NAMES) this.plans.set(plan, usageIdentifierBackstop(plan, config));
    this.pooled = Object.fromEntries(
      POOLED_USAGE_KEY_NAMES.map((plan) => [plan, this.addKey(plan, `pooled-${plan}`).value]),
    ) as PooledUsageKeys;
  }

  /** The values of the pooled keys, one per plan plus anonymous: what the authorizer is configured with. */
  pooledUsageKeys(): PooledUsageKeys {
    return this.pooled;
  }

  /** Rebuilds the bindings kept from an earlier run (with --data): each account's internal key. */
  restore(accounts: readonly AccountRecord[]): void {
    for (const account of accounts) {
      if (account.gatewayUsagePlanId && account.limits) {
        this.plans.set(account.gatewayUsagePlanId, backstopFor(account.limits, this.config));
      }
      const planId = account.plan === 'enterprise' ? account.gatewayUsagePlanId : account.plan;
      if (planId && account.gatewayKeyId && account.gatewayKeyValue && !this.keys.has(account.gatewayKeyId)) {
        this.bindKey(account.gatewayKeyId, account.gatewayKeyValue, planId, `internal-${account.accountId}`);
      }
    }
  }

  standardPlanId(plan: 'free' | 'pro' | 'business'): string {
    return plan;
  }

  async createAccountPlan(accountId: string, limits: RateLimits): Promise<string> {
    const id = `enterprise-${accountId}`;
    await this.updateAccountPlan(id, limits);
    return id;
  }

  async updateAccountPlan(usagePlanId: string, limits: RateLimits): Promise<void> {
    this.plans.set(usagePlanId, backstopFor(limits, this.config));
  }

  async deleteAccountPlan(planId: string): Promise<void> {
    if ([...this.keys.values()].some((k) => k.planId === planId)) throw new Error(`usage plan ${planId} still has keys`);
    this.plans.delete(planId);
  }

  /** Named as on API Gateway (ApiGatewayUsagePlanGateway.createKey). */
  async createKey(accountId: string, usagePlanId: string): Promise<InternalKey | undefined> {
    return this.addKey(usagePlanId, `internal-${accountId}`);
  }

  async moveKey(id: string, _from: string, toPlanId: string): Promise<void> {
    const key = this.keys.get(id);
    if (!key) throw new Error(`no API key ${id}`);
    if (!this.plans.has(toPlanId)) throw new Error(`no usage plan ${toPlanId}`);
    key.planId = toPlanId;
    this.planOfValue.set(key.value, toPlanId);
  }

  async deleteKey(id: string): Promise<void> {
    const key = this.keys.get(id);
    if (!key) return;
    this.keys.delete(id);
    this.planOfValue.delete(key.value);
    this.buckets.delete(key.value);
  }

  planOf(id: string): string | undefined {
    return this.keys.get(id)?.planId;
  }

  /** The keys whose name starts with `prefix` (GetUsagePlanKeys, filtered as the teardown does). */
  keysNamed(prefix: string): { id: string; name: string }[] {
    return [...this.keys.entries()]
      .filter(([, k]) => k.name.startsWith(prefix))
      .map(([id, k]) => ({ id, name: k.name }));
  }

  /** The usage plans whose id (locally also its name) starts with `prefix`. */
  plansNamed(prefix: string): string[] {
    return [...this.plans.keys()].filter((id) => id.startsWith(prefix));
  }

  admit(apiKeyValue: string | undefined): 'ok' | 'THROTTLED' | 'QUOTA_EXCEEDED' | 'INVALID_API_KEY' {
    const planId = apiKeyValue === undefined ? undefined : this.planOfValue.get(apiKeyValue);
    const plan = planId === undefined ? undefined : this.plans.get(planId);
    if (!plan || apiKeyValue === undefined) return 'INVALID_API_KEY';
    const now = this.clock.now();
    const day = Math.floor(now / DAY_MS);
    const bucket = this.buckets.get(apiKeyValue) ?? { tokens: plan.burstLimit, atMs: now, day, used: 0 };
    bucket.tokens = Math.min(plan.burstLimit, bucket.tokens + (Math.max(0, now - bucket.atMs) / 1000) * plan.rateLimit);
    bucket.atMs = now;
    if (bucket.day !== day) {
      bucket.day = day;
      bucket.used = 0;
    }
    this.buckets.set(apiKeyValue, bucket);
    if (bucket.used >= plan.quotaPerDay) return 'QUOTA_EXCEEDED';
    if (bucket.tokens < 1) return 'THROTTLED';
    bucket.tokens -= 1;
    bucket.used += 1;
    return 'ok';
  }

  /** Like CreateApiKey and CreateUsagePlanKey: a key with a generated value, in a plan. */
  private addKey(planId: string, name: string): InternalKey {
    if (!this.plans.has(planId)) throw new Error(`no usage plan ${planId}`);
    const key = { id: randomUUID().replaceAll('-', '').slice(0, 10), value: randomBytes(20).toString('hex') };
    this.bindKey(key.id, key.value, planId, name);
    return key;
  }

  private bindKey(id: string, value: string, planId: string, name: string): void {
    this.keys.set(id, { value, planId, name });
    this.planOfValue.set(value, planId);
  }
}
