import type { RateLimits } from '../../lib/config/index.js';

/**
 * An internal API Gateway key: its id (to move or delete it) and its value (the usage identifier
 * the authorizer returns; an internal identifier, not a customer secret).
 */
export interface InternalKey {
  readonly id: string;
  readonly value: string;
}

/**
 * Binding of customer keys to API Gateway usage plans (the backstop behind the exact limiter),
 * through internal API Gateway keys: customer secrets never live in API Gateway.
 *
 * Usage-plan throttles and quotas apply per API key, so each customer key gets its own internal
 * key in its plan's usage plan. API Gateway allows 10,000 API keys per region: when that quota is
 * reached, `createKey` answers `undefined` for Free and Pro keys, which then share their plan's
 * pooled internal key chosen by the authorizer (documented in the README).
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
  /**
   * Creates the internal key of customer key `keyId` in usage plan `usagePlanId`; returns its id
   * and value, or undefined when the key must use its plan's pool (API key quota reached; Free and
   * Pro only).
   */
  createKey(keyId: string, usagePlanId: string, poolable: boolean): Promise<InternalKey | undefined>;
  /** The value of an existing internal key (migration of records that lack it); undefined once it is deleted. */
  keyValue(gatewayKeyId: string): Promise<string | undefined>;
  /** Moves an internal key from one usage plan to another (plan change). */
  moveKey(gatewayKeyId: string, fromUsagePlanId: string, toUsagePlanId: string): Promise<void>;
  /** Deletes the internal key of a revoked customer key. */
  deleteKey(gatewayKeyId: string): Promise<void>;
}
