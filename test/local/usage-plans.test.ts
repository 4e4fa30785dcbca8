import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/clock.js';
import { loadConfig } from '../../lib/config/index.js';
import { UsagePlans } from '../../local/usage-plans.js';

const config = loadConfig();
const setup = () => {
  const plans = new UsagePlans(new ManualClock(Date.UTC(2026, 10, 21)), config);
  return { plans, gateway: plans };
};

describe('UsagePlans: the same model as on AWS', () => {
  it('gives the authorizer one pooled value per plan and for anonymous callers, each admitted on its own plan', () => {
    const { plans, gateway } = setup();
    const pooled = gateway.pooledUsageKeys();
    expect(Object.keys(pooled)).toEqual(['free', 'pro', 'business', 'enterprise', 'anonymous']);
    expect(new Set(Object.values(pooled)).size).toBe(5);
    for (const value of Object.values(pooled)) expect(plans.admit(value)).toBe('ok');
  });

  it('answers a new internal key\'s id and value (CreateApiKey), admitted until it is deleted', async () => {
    const { plans, gateway } = setup();
    const key = await gateway.createKey('key_1', 'pro');
    expect(key).toEqual({ id: expect.any(String), value: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(plans.admit(key?.value)).toBe('ok');
    expect(plans.planOf(key?.id as string)).toBe('pro');
    await gateway.deleteKey(key?.id as string);
    expect(plans.planOf(key?.id as string)).toBeUndefined();
    expect(plans.admit(key?.value)).toBe('INVALID_API_KEY');
  });

  it('restores stored accounts\' internal keys (--data) with the value their record holds', () => {
    const { plans, gateway } = setup();
    gateway.restore([
      { accountId: 'acct_1', name: 'One', plan: 'pro', gatewayKeyId: 'gk-a', gatewayKeyValue: 'stored-value-of-gk-a-0000', createdAt: '2026-11-21T00:00:00.000Z' },
      { accountId: 'acct_2', name: 'Two', plan: 'free', createdAt: '2026-11-21T00:00:00.000Z' },
    ]);
    expect(plans.admit('stored-value-of-gk-a-0000')).toBe('ok');
    expect(plans.planOf('gk-a')).toBe('pro');
    expect(plans.keysNamed('internal-')).toEqual([{ id: 'gk-a', name: 'internal-acct_1' }]);
  });
});
