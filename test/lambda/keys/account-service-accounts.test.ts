import { describe, expect, it } from 'vitest';
import { HttpProblem, refuse } from '../../../lambda/shared/problem.js';
import { AGREED, config, expectInvalid, iso, refusal, setup, T0 } from './account-service-fixtures.js';
import { valueOfGatewayKey } from '../../support/key-fakes.js';

const FREE = config.plans.free.limits;
const PRO = config.plans.pro.limits;
const BUSINESS = config.plans.business.limits;
const ENTERPRISE_DEFAULT = config.plans.enterprise.limits;
const NAME_MESSAGE = 'must be a string of 1 to 100 characters';
const PLAN_MESSAGE = 'must be one of free, pro, business, enterprise';
const LIMITS_SHAPE = 'must be {"perMinute": n, "perDay": n} with whole numbers above 0';
const LIMITS_ORDER = 'perDay must be at least perMinute';
const notEnterprise = (plan: string) => `only Enterprise accounts have custom limits, not ${plan}`;

describe('refuse (the account service\'s refusals)', () => {
  it('is an HttpProblem with a code, the HTTP status its API answers, and optional field errors', () => {
    const error = refuse('key_not_found', 'No key key_1 in account acct_1.', 404);
    expect(error).toBeInstanceOf(HttpProblem);
    expect(error.title).toBe('Not Found');
    expect(error.code).toBe('key_not_found');
    expect(error.status).toBe(404);
    expect(error.message).toBe('No key key_1 in account acct_1.');
    expect(error.errors).toBeUndefined();
    const invalid = refuse('invalid_request', 'name: bad', 400, [{ field: 'name', message: 'bad' }]);
    expect(invalid.errors).toEqual([{ field: 'name', message: 'bad' }]);
  });

  it('answers 404 account_not_found for an unknown account, from every operation', async () => {
    const { accountService } = setup();
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['getAccount', () => accountService.getAccount('acct_x')],
      ['createKey', () => accountService.createKey('acct_x', 'default')],
      ['listKeys', () => accountService.listKeys('acct_x')],
      ['revokeKey', () => accountService.revokeKey('acct_x', 'key_1')],
      ['setPlan', () => accountService.setPlan('acct_x', { plan: 'pro' })],
      ['liftBan', () => accountService.liftBan('acct_x', 'key_1')],
      ['usage', () => accountService.usage('acct_x')],
    ];
    for (const [operation, call] of calls) {
      const error = await refusal(call());
      const { code, status, message, errors } = error;
      expect({ operation, code, status, message, errors }).toEqual({
        operation,
        code: 'account_not_found',
        status: 404,
        message: 'No account acct_x.',
        errors: undefined,
      });
    }
  });

  it('answers 404 key_not_found for an unknown key of a known account', async () => {
    const { accountService, createAccount } = setup();
    await createAccount();
    for (const call of [() => accountService.revokeKey('acct_1', 'key_x'), () => accountService.liftBan('acct_1', 'key_x')]) {
      const error = await refusal(call());
      expect([error.code, error.status, error.message, error.errors]).toEqual([
        'key_not_found',
        404,
        'No key key_x in account acct_1.',
        undefined,
      ]);
    }
  });
});

describe('AccountService.createAccount', () => {
  it('stores a standard-plan account with its internal key, without limits of its own, and answers its view', async () => {
    const { accountService, accounts, gateway, limiter } = setup();
    const view = await accountService.createAccount({ name: 'Acme', plan: 'pro', accountId: 'acct_1' });
    expect(view).toEqual({
      accountId: 'acct_1',
      name: 'Acme',
      plan: 'pro',
      limits: PRO,
      customLimits: false,
      createdAt: iso(T0),
      upgradeRequest: null,
    });
    // The account's one internal key, in its plan's usage plan: every key of the account will use it.
    expect([...accounts.accounts.values()]).toEqual([
      { accountId: 'acct_1', name: 'Acme', plan: 'pro', gatewayKeyId: 'gk-1', gatewayKeyValue: valueOfGatewayKey('gk-1'), createdAt: iso(T0) },
    ]);
    expect(gateway.calls).toEqual([{ method: 'createKey', accountId: 'acct_1', usagePlanId: 'up-pro', poolable: true }]);
    expect(await accountService.getAccount('acct_1')).toEqual(view);
    // Its budget: one limiter item holding the plan's limits.
    expect(limiter.raw('acct#acct_1')).toEqual({ id: 'acct#acct_1', minuteLimit: 300, dayLimit: 10_000, perMinute: 300, perDay: 10_000, shards: 1 });
  });

  it('pools a Free or Pro account when the API keys quota is reached, and refuses a Business one, keeping nothing', async () => {
    const { createAccount, accounts, gateway } = setup();
    gateway.quotaReached = true;
    await createAccount('free', undefined, 'acct_pooled');
    expect(accounts.accounts.get('acct_pooled')).not.toHaveProperty('gatewayKeyId');
    await expect(createAccount('business', undefined, 'acct_b')).rejects.toThrow('API key quota reached');
    expect(accounts.accounts.has('acct_b')).toBe(false);
  });

  it.each([
    ['free', FREE],
    ['business', BUSINESS],
  ] as const)('shows the %s plan\'s limits in force', async (plan, limits) => {
    const { createAccount } = setup();
    expect(await createAccount(plan)).toMatchObject({ plan, limits, customLimits: false });
  });

  it('generates a distinct acct_ id when none is given', async () => {
    const { accountService, accounts } = setup();
    const a = await accountService.createAccount({ name: 'A', plan: 'free' });
    const b = await accountService.createAccount({ name: 'B', plan: 'free' });
    expect(a.accountId).toMatch(/^acct_[0-9a-f]{20}$/);
    expect(b.accountId).toMatch(/^acct_[0-9a-f]{20}$/);
    expect(a.accountId).not.toBe(b.accountId);
    expect([...accounts.accounts.keys()].sort()).toEqual([a.accountId, b.accountId].sort());
  });

  it('trims the name, and accepts 1 to 100 characters after trimming', async () => {
    const { accountService } = setup();
    expect((await accountService.createAccount({ name: '  Acme Ltd \n', plan: 'free' })).name).toBe('Acme Ltd');
    expect((await accountService.createAccount({ name: 'x', plan: 'free' })).name).toBe('x');
    const hundred = 'x'.repeat(100);
    expect((await accountService.createAccount({ name: hundred, plan: 'free' })).name).toBe(hundred);
    expect((await accountService.createAccount({ name: ` ${hundred} `, plan: 'free' })).name).toBe(hundred);
  });

  it('gives an Enterprise account its own usage plan with its agreed limits', async () => {
    const { accountService, accounts, gateway } = setup();
    const view = await accountService.createAccount({ name: 'Big', plan: 'enterprise', limits: AGREED, accountId: 'acct_big' });
    expect(view).toEqual({
      accountId: 'acct_big',
      name: 'Big',
      plan: 'enterprise',
      limits: AGREED,
      customLimits: true,
      createdAt: iso(T0),
      upgradeRequest: null,
    });
    expect(gateway.calls).toEqual([
      { method: 'createAccountPlan', accountId: 'acct_big', limits: AGREED },
      { method: 'createKey', accountId: 'acct_big', usagePlanId: 'up-acct-acct_big', poolable: false },
    ]);
    expect(gateway.plans.get('up-acct-acct_big')).toEqual({ accountId: 'acct_big', limits: AGREED });
    expect(gateway.keysIn('up-acct-acct_big')).toEqual(['gk-1']);
    expect(accounts.accounts.get('acct_big')).toEqual({
      accountId: 'acct_big',
      name: 'Big',
      plan: 'enterprise',
      limits: AGREED,
      gatewayUsagePlanId: 'up-acct-acct_big',
      gatewayKeyId: 'gk-1',
      gatewayKeyValue: valueOfGatewayKey('gk-1'),
      createdAt: iso(T0),
    });
  });

  it('gives an Enterprise account without agreed limits the config\'s Enterprise defaults, in its own usage plan', async () => {
    const { createAccount, accounts, gateway } = setup();
    const view = await createAccount('enterprise');
    expect(view.limits).toEqual(ENTERPRISE_DEFAULT);
    expect(gateway.calls[0]).toEqual({ method: 'createAccountPlan', accountId: 'acct_1', limits: ENTERPRISE_DEFAULT });
    expect(accounts.accounts.get('acct_1')).toMatchObject({
      limits: ENTERPRISE_DEFAULT,
      gatewayUsagePlanId: 'up-acct-acct_1',
    });
  });

  it('accepts perDay equal to perMinute', async () => {
    const { createAccount } = setup();
    expect((await createAccount('enterprise', { perMinute: 500, perDay: 500 })).limits).toEqual({ perMinute: 500, perDay: 500 });
  });

  it('refuses an id that is taken, leaves the existing account as it was, and deletes the internal key it made', async () => {
    const { accountService, createAccount, accounts, gateway } = setup();
    await createAccount('pro');
    const before = accounts.accounts.get('acct_1');
    await expect(accountService.createAccount({ name: 'Other', plan: 'free', accountId: 'acct_1' })).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
    expect(accounts.accounts.get('acct_1')).toEqual(before);
    expect(gateway.calls.at(-1)).toEqual({ method: 'deleteKey', gatewayKeyId: 'gk-2' });
    expect([...gateway.members.keys()]).toEqual(['gk-1']);
  });

  describe('validation (400 invalid_request, before any change)', () => {
    const name = 'Acme';
    it.each([
      ['no name', { plan: 'free' }, 'name', NAME_MESSAGE],
      ['a null name', { name: null, plan: 'free' }, 'name', NAME_MESSAGE],
      ['a number as name', { name: 42, plan: 'free' }, 'name', NAME_MESSAGE],
      ['an array as name', { name: ['Acme'], plan: 'free' }, 'name', NAME_MESSAGE],
      ['an empty name', { name: '', plan: 'free' }, 'name', NAME_MESSAGE],
      ['a blank name', { name: ' \t\n ', plan: 'free' }, 'name', NAME_MESSAGE],
      ['a name of 101 characters', { name: 'x'.repeat(101), plan: 'free' }, 'name', NAME_MESSAGE],
      ['the name checked first', { name: '', plan: 'gold', limits: 'x' }, 'name', NAME_MESSAGE],
      ['no plan', { name }, 'plan', PLAN_MESSAGE],
      ['an unknown plan', { name, plan: 'gold' }, 'plan', PLAN_MESSAGE],
      ['a plan in another case', { name, plan: 'Free' }, 'plan', PLAN_MESSAGE],
      ['anonymous as a plan', { name, plan: 'anonymous' }, 'plan', PLAN_MESSAGE],
      ['a number as plan', { name, plan: 1 }, 'plan', PLAN_MESSAGE],
      ['the plan checked before limits', { name, plan: 'gold', limits: { perMinute: 0 } }, 'plan', PLAN_MESSAGE],
      ['limits on free', { name, plan: 'free', limits: { perMinute: 10, perDay: 100 } }, 'limits', notEnterprise('free')],
      ['limits on pro', { name, plan: 'pro', limits: { perMinute: 10, perDay: 100 } }, 'limits', notEnterprise('pro')],
      [
        'limits on business',
        { name, plan: 'business', limits: { perMinute: 10, perDay: 100 } },
        'limits',
        notEnterprise('business'),
      ],
      ['null limits on free', { name, plan: 'free', limits: null }, 'limits', notEnterprise('free')],
      ['a zero limit', { name, plan: 'enterprise', limits: { perMinute: 0, perDay: 100 } }, 'limits', LIMITS_SHAPE],
      ['a negative limit', { name, plan: 'enterprise', limits: { perMinute: 10, perDay: -100 } }, 'limits', LIMITS_SHAPE],
      ['a fractional limit', { name, plan: 'enterprise', limits: { perMinute: 1.5, perDay: 100 } }, 'limits', LIMITS_SHAPE],
      ['a limit as a string', { name, plan: 'enterprise', limits: { perMinute: '10', perDay: 100 } }, 'limits', LIMITS_SHAPE],
      ['an infinite limit', { name, plan: 'enterprise', limits: { perMinute: 10, perDay: Infinity } }, 'limits', LIMITS_SHAPE],
      ['a NaN limit', { name, plan: 'enterprise', limits: { perMinute: Number.NaN, perDay: 100 } }, 'limits', LIMITS_SHAPE],
      ['a missing perDay', { name, plan: 'enterprise', limits: { perMinute: 10 } }, 'limits', LIMITS_SHAPE],
      [
        'an unknown limit field',
        { name, plan: 'enterprise', limits: { perMinute: 10, perDay: 100, perSecond: 1 } },
        'limits',
        LIMITS_SHAPE,
      ],
      ['null limits on enterprise', { name, plan: 'enterprise', limits: null }, 'limits', LIMITS_SHAPE],
      ['limits as an array', { name, plan: 'enterprise', limits: [10, 100] }, 'limits', LIMITS_SHAPE],
      ['limits as a string', { name, plan: 'enterprise', limits: 'lots' }, 'limits', LIMITS_SHAPE],
      ['perDay below perMinute', { name, plan: 'enterprise', limits: { perMinute: 100, perDay: 99 } }, 'limits', LIMITS_ORDER],
    ])('refuses %s', async (_what, input, field, message) => {
      const { accountService, accounts, gateway } = setup();
      const error = await refusal(accountService.createAccount({ ...(input as { name: unknown; plan: unknown }), accountId: 'acct_1' }));
      expectInvalid(error, field, message);
      expect(accounts.accounts.size).toBe(0);
      expect(gateway.calls).toEqual([]);
    });
  });
});
