import { randomBytes, randomUUID } from 'node:crypto';
import { backstopFor, usageIdentifierBackstop, type PlatformConfig, type RateLimits } from '../lib/config/index.js';
import type { AccountRecord } from '../lambda/keys/accounts.js';
import { POOLED_USAGE_KEY_NAMES, type PooledUsageKeys } from '../lambda/keys/authorize.js';
import type { InternalKey, UsagePlanGateway } from '../lambda/keys/usage-plan-gateway.js';
import { DAY_MS } from '../lambda/rate-limits/windows.js';
import type { Clock } from '../lambda/shared/clock.js';

type UsagePlanLimits = ReturnType<typeof backstopFor>;

/**
 * API Gateway usage plans as the local front applies them: a token bucket (rate per second, burst)
 * and a daily quota per API key, each key bound to one plan. Like API Gateway they meter every
 * request that reaches them: the backstop behind the exact limiter in the handlers.
 */
export class UsagePlans {
  private readonly plans = new Map<string, UsagePlanLimits>();
  private readonly keys = new Map<string, { value: string; planId: string; name: string }>();
  private readonly planOfValue = new Map<string, string>();
  private readonly buckets = new Map<string, { tokens: number; atMs: number; day: number; used: number }>();

  constructor(private readonly clock: Clock) {}

  definePlan(planId: string, limits: UsagePlanLimits): void {
    this.plans.set(planId, limits);
  }

  deletePlan(planId: string): void {
    if ([...this.keys.values()].some((k) => k.planId === planId)) throw new Error(`usage plan ${planId} still has keys`);
    this.plans.delete(planId);
  }

  /** Creates an API key in a plan; like API Gateway, it generates the value. */
  createKey(planId: string, name: string): InternalKey {
    if (!this.plans.has(planId)) throw new Error(`no usage plan ${planId}`);
    const key = { id: randomUUID().replaceAll('-', '').slice(0, 10), value: randomBytes(20).toString('hex') };
    this.restoreKey(key.id, planId, key.value, name);
    return key;
  }

  /** Registers a key kept from an earlier run (with --data) with the value its record stored. */
  restoreKey(id: string, planId: string, value: string, name: string): void {
    if (this.keys.has(id)) return;
    this.keys.set(id, { value, planId, name });
    this.planOfValue.set(value, planId);
  }

  moveKey(id: string, toPlanId: string): void {
    const key = this.keys.get(id);
    if (!key) throw new Error(`no API key ${id}`);
    if (!this.plans.has(toPlanId)) throw new Error(`no usage plan ${toPlanId}`);
    key.planId = toPlanId;
    this.planOfValue.set(key.value, toPlanId);
  }

  deleteKey(id: string): void {
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
}

/**
 * The local counterpart of the API Gateway adapter: the usage plans the API stack creates (one per
 * standard plan, one for anonymous callers, one per Enterprise account at run time), a pooled key
 * per plan, and one internal key per account. As on AWS, the authorizer gets the pooled keys'
 * values at start and each account's value from its keys' records.
 */
export class LocalUsagePlanGateway implements UsagePlanGateway {
  private readonly pooled: PooledUsageKeys;

  constructor(
    readonly plans: UsagePlans,
    private readonly config: PlatformConfig,
  ) {
    for (const plan of POOLED_USAGE_KEY_NAMES) {
      this.plans.definePlan(plan, usageIdentifierBackstop(plan, config));
    }
    this.pooled = Object.fromEntries(
      POOLED_USAGE_KEY_NAMES.map((plan) => [plan, this.plans.createKey(plan, `pooled-${plan}`).value]),
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
        this.plans.definePlan(account.gatewayUsagePlanId, backstopFor(account.limits, this.config));
      }
      const planId = account.plan === 'enterprise' ? account.gatewayUsagePlanId : account.plan;
      if (planId && account.gatewayKeyId && account.gatewayKeyValue) {
        this.plans.restoreKey(account.gatewayKeyId, planId, account.gatewayKeyValue, `internal-${account.accountId}`);
      }
    }
  }

  standardPlanId(plan: 'free' | 'pro' | 'business'): string {
    return plan;
  }

  async createAccountPlan(accountId: string, limits: RateLimits): Promise<string> {
    const id = `enterprise-${accountId}`;
    this.plans.definePlan(id, backstopFor(limits, this.config));
    return id;
  }

  async updateAccountPlan(usagePlanId: string, limits: RateLimits): Promise<void> {
    this.plans.definePlan(usagePlanId, backstopFor(limits, this.config));
  }

  async deleteAccountPlan(usagePlanId: string): Promise<void> {
    this.plans.deletePlan(usagePlanId);
  }

  async createKey(accountId: string, usagePlanId: string): Promise<InternalKey | undefined> {
    return this.plans.createKey(usagePlanId, `internal-${accountId}`);
  }

  async moveKey(gatewayKeyId: string, _from: string, to: string): Promise<void> {
    this.plans.moveKey(gatewayKeyId, to);
  }

  async deleteKey(gatewayKeyId: string): Promise<void> {
    this.plans.deleteKey(gatewayKeyId);
  }
}
