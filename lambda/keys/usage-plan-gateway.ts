import type { RateLimits } from '../../contracts/plans.js';

/** An internal API Gateway key: its id, and its value (the usage identifier the authorizer returns; not a customer secret). */
export interface InternalKey {
  readonly id: string;
  readonly value: string;
}

/**
 * Binding of accounts to API Gateway usage plans (the backstop behind the exact limiter), through
 * internal API Gateway keys: customer secrets never live in API Gateway.
 *
 * Usage-plan throttles and quotas apply per API key, and limits belong to the account, so each
 * account gets one internal key in its plan's usage plan, shared by all its customer keys. API
 * Gateway allows 10,000 API keys per region, so that many accounts: when the quota is reached,
 * `createKey` answers `undefined` for Free and Pro accounts, which then share their plan's pooled
 * internal key chosen by the authorizer (docs/operators/operations.md, "API keys and usage plans").
 */
export interface UsagePlanGateway {
  /** The shared usage plan of a standard plan (free, pro, business). */
  standardPlanId(plan: 'free' | 'pro' | 'business'): string;
  /** Creates the own usage plan of an Enterprise account with its agreed limits; returns its id. */
  createAccountPlan(accountId: string, limits: RateLimits): Promise<string>;
  /** Changes the limits of an Enterprise account's usage plan (rate limited by AWS: 1 update per 20 s). */
  updateAccountPlan(usagePlanId: string, limits: RateLimits): Promise<void>;
  /** Deletes an Enterprise account's usage plan once no key is bound to it. */
  deleteAccountPlan(usagePlanId: string): Promise<void>;
  /** Creates the account's internal key in the usage plan; undefined when it must use its plan's pool (Free and Pro only). */
  createKey(accountId: string, usagePlanId: string, poolable: boolean): Promise<InternalKey | undefined>;
  /** Moves an internal key from one usage plan to another (plan change). */
  moveKey(gatewayKeyId: string, fromUsagePlanId: string, toUsagePlanId: string): Promise<void>;
  /** Deletes an internal key (one left unused by a failed account creation). */
  deleteKey(gatewayKeyId: string): Promise<void>;
}
