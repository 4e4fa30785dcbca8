import { describe, expect, it } from 'vitest';
import type { PlanId, RateLimits } from '../../../lib/config/index.js';
import { AGREED, AGREED_BIG, config, expectInvalid, iso, refusal, setup, T0 } from './account-service-fixtures.js';
import { valueOfGatewayKey } from '../../support/key-fakes.js';

const PLAN_MESSAGE = 'must be one of free, pro, business, enterprise';
const LIMITS_SHAPE = 'must be {"perMinute": n, "perDay": n} with whole numbers above 0';
const LIMITS_ORDER = 'perDay must be at least perMinute';
const notEnterprise = (plan: string) => `only Enterprise accounts have custom limits, not ${plan}`;

/** An account with two keys and a revoked one, all holding the account's one internal key gk-1. */
async function accountWithKeys(plan: PlanId, limits?: RateLimits) {
  const context = setup();
  const { accountService, createAccount, createKey, gateway } = context;
  await createAccount(plan, limits);
  const a = (await createKey('a')).key.keyId;
  const b = (await createKey('b')).key.keyId;
  const revoked = (await createKey('revoked')).key.keyId;
  await accountService.revokeKey('acct_1', revoked);
  gateway.calls.length = 0;
  context.clock.set(T0 + 3_600_000);
  return { ...context, a, b, revoked };
}

describe('AccountService.setPlan', () => {
  it('free → pro moves the account\'s one internal key, and the keys draw on the new budget from their next request', async () => {
    const { accountService, gateway, accounts, record, a, b, revoked, send } = await accountWithKeys('free');
    const view = await accountService.setPlan('acct_1', { plan: 'pro' });
    expect(view).toMatchObject({ plan: 'pro', limits: config.plans.pro.limits, updatedAt: iso(T0 + 3_600_000) });
    expect(gateway.calls).toEqual([{ method: 'moveKey', gatewayKeyId: 'gk-1', from: 'up-free', to: 'up-pro' }]);
    expect(gateway.keysIn('up-pro')).toEqual(['gk-1']);
    expect(accounts.accounts.get('acct_1')).toMatchObject({ plan: 'pro', gatewayKeyId: 'gk-1', gatewayKeyValue: valueOfGatewayKey('gk-1') });
    for (const keyId of [a, b, revoked]) expect(record(keyId)).toMatchObject({ plan: 'pro', gatewayKeyId: 'gk-1' });
    expect((await send(b)).state.minute.limit).toBe(300);
  });

  it('free → enterprise creates the account\'s usage plan, moves its key there and splits its budget across shards', async () => {
    const { accountService, gateway, accounts, record, limiter, a, send } = await accountWithKeys('free');
    await accountService.setPlan('acct_1', { plan: 'enterprise', limits: AGREED_BIG });
    expect(gateway.calls).toEqual([
      { method: 'createAccountPlan', accountId: 'acct_1', limits: AGREED_BIG },
      { method: 'moveKey', gatewayKeyId: 'gk-1', from: 'up-free', to: 'up-acct-acct_1' },
    ]);
    expect(accounts.accounts.get('acct_1')).toMatchObject({ plan: 'enterprise', limits: AGREED_BIG, gatewayUsagePlanId: 'up-acct-acct_1' });
    expect(record(a)).toMatchObject({ plan: 'enterprise', limits: AGREED_BIG });
    expect(limiter.raw('acct#acct_1')).toMatchObject({ minuteLimit: 30_000, perMinute: 60_000, shards: 2 });
    expect(limiter.raw('acct#acct_1#1')).toMatchObject({ minuteLimit: 30_000, dayLimit: 25_000_000, shards: 2 });
    expect((await send(a)).state.minute.limit).toBe(60_000);
  });

  it('enterprise → enterprise with new limits updates the account\'s usage plan without moving its key', async () => {
    const { accountService, gateway, record, a } = await accountWithKeys('enterprise', AGREED);
    const raised = { perMinute: 25_000, perDay: 6_000_000 };
    await accountService.setPlan('acct_1', { plan: 'enterprise', limits: raised });
    expect(gateway.calls).toEqual([{ method: 'updateAccountPlan', usagePlanId: 'up-acct-acct_1', limits: raised }]);
    expect(record(a)).toMatchObject({ limits: raised });
    // Without new limits, an Enterprise account keeps its agreed ones.
    gateway.calls.length = 0;
    expect((await accountService.setPlan('acct_1', { plan: 'enterprise' })).limits).toEqual(raised);
  });

  it('enterprise → business moves the key back to the shared usage plan, then deletes the account\'s plan', async () => {
    const { accountService, gateway, accounts, record, a, limiter } = await accountWithKeys('enterprise', AGREED_BIG);
    await accountService.setPlan('acct_1', { plan: 'business' });
    expect(gateway.calls).toEqual([
      { method: 'moveKey', gatewayKeyId: 'gk-1', from: 'up-acct-acct_1', to: 'up-business' },
      { method: 'deleteAccountPlan', usagePlanId: 'up-acct-acct_1' },
    ]);
    expect(gateway.plans.has('up-acct-acct_1')).toBe(false);
    expect(accounts.accounts.get('acct_1')).not.toHaveProperty('gatewayUsagePlanId');
    expect(record(a)).not.toHaveProperty('limits');
    // The second shard is retired: a slice of 0, so a caller whose limits predate the change moves on.
    expect(limiter.raw('acct#acct_1#1')).toMatchObject({ minuteLimit: 0, dayLimit: 0, shards: 1 });
  });

  it('gives a pooled account moving to a plan that never pools its own internal key, copied into its active keys', async () => {
    const context = setup();
    const { accountService, createAccount, createKey, gateway, record } = context;
    gateway.quotaReached = true;
    await createAccount('free');
    const a = (await createKey('a')).key.keyId;
    gateway.quotaReached = false;
    gateway.calls.length = 0;
    await accountService.setPlan('acct_1', { plan: 'business' });
    expect(gateway.calls).toEqual([{ method: 'createKey', accountId: 'acct_1', usagePlanId: 'up-business', poolable: false }]);
    expect(record(a)).toMatchObject({ gatewayKeyId: 'gk-1', gatewayKeyValue: valueOfGatewayKey('gk-1') });
  });

  it('refuses the next request of an account over its lowered limits', async () => {
    const { accountService, a, b, send } = await accountWithKeys('pro');
    for (let i = 0; i < 70; i++) await send(i % 2 === 0 ? a : b);
    await accountService.setPlan('acct_1', { plan: 'free' });
    expect((await send(a)).outcome).toBe('rate_limited');
  });

  it('is completed by running it again after the key could not be moved or the old plan not deleted', async () => {
    const { accountService, gateway, accounts } = await accountWithKeys('enterprise', AGREED);
    gateway.fail('deleteAccountPlan', new Error('throttled'));
    await expect(accountService.setPlan('acct_1', { plan: 'business' })).rejects.toThrow('throttled');
    expect(accounts.accounts.get('acct_1')).toMatchObject({ plan: 'enterprise' });
    await accountService.setPlan('acct_1', { plan: 'business' });
    expect(accounts.accounts.get('acct_1')).toMatchObject({ plan: 'business' });
    expect(gateway.keysIn('up-business')).toEqual(['gk-1']);
    expect(gateway.plans.has('up-acct-acct_1')).toBe(false);
  });

  describe('validation (400 invalid_request, before any change)', () => {
    it.each([
      ['no plan', {}, 'plan', PLAN_MESSAGE],
      ['an unknown plan', { plan: 'platinum' }, 'plan', PLAN_MESSAGE],
      ['limits on pro', { plan: 'pro', limits: { perMinute: 10, perDay: 100 } }, 'limits', notEnterprise('pro')],
      ['limits on business', { plan: 'business', limits: AGREED }, 'limits', notEnterprise('business')],
      ['a fractional limit', { plan: 'enterprise', limits: { perMinute: 10.5, perDay: 100 } }, 'limits', LIMITS_SHAPE],
      ['a zero limit', { plan: 'enterprise', limits: { perMinute: 10, perDay: 0 } }, 'limits', LIMITS_SHAPE],
      ['perDay below perMinute', { plan: 'enterprise', limits: { perMinute: 10, perDay: 9 } }, 'limits', LIMITS_ORDER],
    ])('refuses %s', async (_what, input, field, message) => {
      const { accountService, gateway, data } = await accountWithKeys('free');
      const before = data();
      expectInvalid(await refusal(accountService.setPlan('acct_1', input as { plan: unknown })), field, message);
      expect(data()).toBe(before);
      expect(gateway.calls).toEqual([]);
    });
  });
});
