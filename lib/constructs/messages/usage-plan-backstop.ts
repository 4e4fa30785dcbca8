import { Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type { Construct } from 'constructs';
import { ENV } from '../../../contracts/messages.js';
import { PLAN_IDS, type PlanId, type PlatformConfig, usageIdentifierBackstop } from '../../config/index.js';
import type { PlatformFunction } from '../shared/platform-function.js';
import { pooledUsageKeyValue } from './pooled-usage-keys.js';

/** The usage identifiers the authorizer can return: one per plan, plus anonymous callers. */
export const USAGE_IDENTIFIERS = [...PLAN_IDS, 'anonymous'] as const;
export type UsageIdentifier = (typeof USAGE_IDENTIFIERS)[number];

export interface UsagePlanBackstopProps {
  readonly config: PlatformConfig;
  readonly api: apigw.RestApi;
  readonly stage: apigw.Stage;
  readonly authorizer: PlatformFunction;
}

/**
 * Usage plans (the backstop behind our exact limiter), with one pooled internal API key each. The
 * account service gives customer keys their own internal keys at run time; the pooled one serves
 * anonymous callers and keys without one (e.g. past the API key quota). Created in `scope` itself.
 */
export function createUsagePlanBackstop(scope: Construct, props: UsagePlanBackstopProps) {
  const { config, api, stage } = props;
  const stack = Stack.of(scope);
  const usagePlans = {} as Record<UsageIdentifier, { readonly plan: apigw.UsagePlan; readonly key: apigw.ApiKey }>;
  const pooledUsageKeys = {} as Record<UsageIdentifier, string>;
  for (const u of USAGE_IDENTIFIERS) {
    const limits = u === 'anonymous' ? config.anonymous : config.plans[u as PlanId].limits;
    const backstop = usageIdentifierBackstop(u, config);
    const suffix = u.charAt(0).toUpperCase() + u.slice(1);
    const plan = new apigw.UsagePlan(scope, `UsagePlan${suffix}`, {
      name: `${stack.stackName}-${u}`,
      description: `Backstop for "${u}" (${limits.perMinute}/min, ${limits.perDay}/day); the exact limiter is ours`,
      throttle: { rateLimit: backstop.rateLimit, burstLimit: backstop.burstLimit },
      quota: { limit: backstop.quotaPerDay, period: apigw.Period.DAY },
      apiStages: [{ api, stage }],
    });
    // Known at synth (not a secret): the authorizer reads it from its environment, no GetApiKey.
    pooledUsageKeys[u] = pooledUsageKeyValue(stack.stackName, u);
    const key = new apigw.ApiKey(scope, `UsageKey${suffix}`, {
      description: `Pooled internal usage identifier of the "${u}" usage plan, for callers without their own internal key (not a customer key)`,
      value: pooledUsageKeys[u],
    });
    plan.addApiKey(key);
    usagePlans[u] = { plan, key };
  }

  props.authorizer.function.addEnvironment(ENV.pooledUsageKeys, JSON.stringify(pooledUsageKeys));
  return usagePlans;
}
