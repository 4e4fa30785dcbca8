import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../../../contracts/messages.js';
import { PLAN_IDS, usageIdentifierBackstop } from '../../../../lib/config/index.js';
import { createMessagesFunctions } from '../../../../lib/constructs/messages/messages-functions.js';
import { createMessagesRestApi } from '../../../../lib/constructs/messages/messages-rest-api.js';
import { pooledUsageKeyValue } from '../../../../lib/constructs/messages/pooled-usage-keys.js';
import { createUsagePlanBackstop, USAGE_IDENTIFIERS } from '../../../../lib/constructs/messages/usage-plan-backstop.js';
import { bareMessagesStack, logicalIdOf } from '../../support/bare-stack.js';

describe('createUsagePlanBackstop (in a bare stack)', () => {
  const { stack, config, data } = bareMessagesStack();
  const functions = createMessagesFunctions(stack, { config, data });
  const { api, stage } = createMessagesRestApi(stack, { config, functions });
  const usagePlans = createUsagePlanBackstop(stack, { config, api, stage, authorizer: functions.authorizer });
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, { Properties: Record<string, unknown> }>;

  it('has one usage identifier per plan plus anonymous, each with a usage plan and a pooled key', () => {
    expect(USAGE_IDENTIFIERS).toEqual([...PLAN_IDS, 'anonymous']);
    expect(Object.keys(usagePlans)).toEqual([...USAGE_IDENTIFIERS]);
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', USAGE_IDENTIFIERS.length);
    template.resourceCountIs('AWS::ApiGateway::ApiKey', USAGE_IDENTIFIERS.length);
    template.resourceCountIs('AWS::ApiGateway::UsagePlanKey', USAGE_IDENTIFIERS.length);
    expect(usagePlans.pro.plan.node.id).toBe('UsagePlanPro');
    expect(usagePlans.anonymous.key.node.id).toBe('UsageKeyAnonymous');
  });

  it('throttles and caps each usage plan at its backstop, a daily quota', () => {
    for (const u of USAGE_IDENTIFIERS) {
      const backstop = usageIdentifierBackstop(u, config);
      const plan = resources[logicalIdOf(stack, usagePlans[u].plan)]?.Properties;
      expect(plan?.Throttle, u).toEqual({ RateLimit: backstop.rateLimit, BurstLimit: backstop.burstLimit });
      expect(plan?.Quota, u).toEqual({ Limit: backstop.quotaPerDay, Period: 'DAY' });
    }
  });

  it('gives the authorizer every pooled key value in POOLED_USAGE_KEYS', () => {
    const authorizer = resources[logicalIdOf(stack, functions.authorizer.function)];
    const env = authorizer?.Properties.Environment as { Variables: Record<string, string> };
    expect(JSON.parse(env.Variables[ENV.pooledUsageKeys] as string)).toEqual(
      Object.fromEntries(USAGE_IDENTIFIERS.map((u) => [u, pooledUsageKeyValue(stack.stackName, u)])),
    );
  });
});
