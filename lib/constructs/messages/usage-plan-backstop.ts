import { Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { ENV } from '../../../contracts/messages.js';
import { PLAN_IDS, type PlanId, type PlatformConfig, type RateLimits, usageIdentifierBackstop } from '../../config/index.js';
import type { PlatformFunction } from '../shared/platform-function.js';
import { pooledUsageKeyValue } from './pooled-usage-keys.js';

/** The usage identifiers the authorizer can return: one per plan, plus anonymous callers. */
export const USAGE_IDENTIFIERS = [...PLAN_IDS, 'anonymous'] as const;
export type UsageIdentifier = (typeof USAGE_IDENTIFIERS)[number];

/** The backstop usage plan of a usage identifier and its pooled internal API key. */
export interface BackstopUsagePlan {
  readonly plan: apigw.UsagePlan;
  readonly key: apigw.ApiKey;
}

export interface UsagePlanBackstopProps {
  readonly config: PlatformConfig;
  readonly api: apigw.RestApi;
  readonly stage: apigw.Stage;
  /** Receives the pooled keys' values in its environment (ENV.pooledUsageKeys). */
  readonly authorizer: PlatformFunction;
}

/**
 * Usage plans (the backstop behind our exact limiter), with one pooled internal API key each.
 *
 * Usage-plan throttles and quotas apply per API key, so the account service gives each customer key
 * its own internal key in its plan's usage plan (and each Enterprise account its own usage plan),
 * at run time. The CDK-created key of each plan is the pooled one: anonymous callers, Free/Pro keys
 * created once the 10,000 API keys per region quota is reached, and key records without the value
 * of an internal key of their own use it (POOLED_USAGE_KEYS). Created in `scope` itself (ids
 * UsagePlan<Identifier>, UsageKey<Identifier>).
 */
export function createUsagePlanBackstop(
  scope: Construct,
  props: UsagePlanBackstopProps,
): Readonly<Record<UsageIdentifier, BackstopUsagePlan>> {
  const { config, api, stage } = props;
  const stack = Stack.of(scope);
  const limitsOf = (u: UsageIdentifier): RateLimits =>
    u === 'anonymous' ? config.anonymous : config.plans[u as PlanId].limits;
  const usagePlans = {} as Record<UsageIdentifier, BackstopUsagePlan>;
  const pooledUsageKeys = {} as Record<UsageIdentifier, string>;
  for (const u of USAGE_IDENTIFIERS) {
    const limits = limitsOf(u);
    const backstop = usageIdentifierBackstop(u, config);
    const suffix = u.charAt(0).toUpperCase() + u.slice(1);
    const plan = new apigw.UsagePlan(scope, `UsagePlan${suffix}`, {
      name: `${stack.stackName}-${u}`,
      description: `Backstop for "${u}" (${limits.perMinute}/min, ${limits.perDay}/day); the exact limiter is ours`,
      throttle: { rateLimit: backstop.rateLimit, burstLimit: backstop.burstLimit },
      quota: { limit: backstop.quotaPerDay, period: apigw.Period.DAY },
      apiStages: [{ api, stage }],
    });
    // A value known at synth (not a secret, see pooledUsageKeyValue) reaches the authorizer in its
    // environment: no GetApiKey on the request path. Customer keys never live here.
    pooledUsageKeys[u] = pooledUsageKeyValue(stack.stackName, u);
    const key = new apigw.ApiKey(scope, `UsageKey${suffix}`, {
      description: `Pooled internal usage identifier of the "${u}" usage plan, for callers without their own internal key (not a customer key)`,
      enabled: true,
      value: pooledUsageKeys[u],
    });
    plan.addApiKey(key);
    usagePlans[u] = { plan, key };
  }

  props.authorizer.addEnvironment(ENV.pooledUsageKeys, JSON.stringify(pooledUsageKeys));
  // No API Gateway grant: the authorizer reads each key's usage identifier from its record and
  // the pooled ones from its environment, never from the management API (low, fixed quotas).
  return usagePlans;
}
