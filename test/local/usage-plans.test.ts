import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/clock.js';
import { loadConfig } from '../../lib/config/index.js';
import { LocalUsagePlanGateway, UsagePlans } from '../../local/usage-plans.js';

const config = loadConfig();
const setup = () => {
  const plans = new UsagePlans(new ManualClock(Date.UTC(2026, 10, 21)));
  return { plans, gateway: new LocalUsagePlanGateway(plans, config) };
};

describe('LocalUsagePlanGateway: the same model as on AWS', () => {
  it('gives the authorizer one pooled value per plan and for anonymous callers, each admitted on its own plan', () => {
    const { plans, gateway } = setup();
    const pooled = gateway.pooledUsageKeys();
    expect(Object.keys(pooled)).toEqual(['free', 'pro', 'business', 'enterprise', 'anonymous']);
    expect(new Set(Object.values(pooled)).size).toBe(5);
    for (const value of Object.values(pooled)) expect(plans.admit(value)).toBe('ok');
  });

  it('answers a new internal key\'s id and value (CreateApiKey), and its value until it is deleted (GetApiKey)', async () => {
    const { plans, gateway } = setup();
    const key = await gateway.createKey('key_1', 'pro');
    expect(key).toEqual({ id: expect.any(String), value: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(await gateway.keyValue(key?.id as string)).toBe(key?.value);
    expect(plans.admit(key?.value)).toBe('ok');
    await gateway.deleteKey(key?.id as string);
    expect(await gateway.keyValue(key?.id as string)).toBeUndefined();
    expect(plans.admit(key?.value)).toBe('INVALID_API_KEY');
  });

  it('restores stored accounts\' keys (--data) with the value their record holds, ', async () => {
    const { plans, gateway } = setup();
    gateway.restore(
      [
        { accountId: 'acct_1', plan: 'pro', gatewayKeyId: 'gk-a', gatewayKeyValue: 'stored-value-of-gk-a-0000' },
        { accountId: 'acct_2', plan: 'free' },
      ],
      [
        { status: 'active', gatewayKeyId: 'gk-a', gatewayKeyValue: 'stored-value-of-gk-a-0000', accountId: 'acct_1' },
        { status: 'active', gatewayKeyId: 'gk-b', accountId: 'acct_2' },
        { status: 'active', gatewayKeyId: 'gk-x', accountId: 'acct_unknown' },
      ],
    );
    expect(await gateway.keyValue('gk-a')).toBe('stored-value-of-gk-a-0000');
    expect(plans.admit('stored-value-of-gk-a-0000')).toBe('ok');
    expect(plans.planOf('gk-a')).toBe('pro');
    expect(await gateway.keyValue('gk-b')).toMatch(/^[0-9a-f]{40}$/);
    expect(plans.planOf('gk-b')).toBe('free');
    expect(await gateway.keyValue('gk-x')).toBeUndefined();
  });
});
