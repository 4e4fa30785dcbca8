import type { RateLimits } from '../../contracts/plans.js';

/** An internal API Gateway key: its id, and its value (the usage identifier the authorizer returns; not a customer secret). */
export interface InternalKey {
  readonly id: string;
  readonly value: string;
}

/** Accounts' internal API Gateway keys in usage plans: docs/operators/operations.md, "API keys and usage plans". */
export interface UsagePlanGateway {
  standardPlanId(plan: 'free' | 'pro' | 'business'): string;
  /** Creates an Enterprise account's own usage plan; returns its id. */
  createAccountPlan(accountId: string, limits: RateLimits): Promise<string>;
  /** Rate limited by AWS: 1 update per 20 s. */
  updateAccountPlan(usagePlanId: string, limits: RateLimits): Promise<void>;
  deleteAccountPlan(usagePlanId: string): Promise<void>;
  /** Creates the account's internal key in the usage plan; undefined when it must use its plan's pool (Free and Pro only). */
  createKey(accountId: string, usagePlanId: string, poolable: boolean): Promise<InternalKey | undefined>;
  moveKey(gatewayKeyId: string, fromUsagePlanId: string, toUsagePlanId: string): Promise<void>;
  deleteKey(gatewayKeyId: string): Promise<void>;
}
