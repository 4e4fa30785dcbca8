import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { API_KEY_PREFIX, isWellFormedApiKey } from '../../../lambda/keys/api-key-format.js';
import { ControlPlane, ControlPlaneError, RELEASE_MARGIN_SECONDS } from '../../../lambda/keys/control-plane.js';
import type { ApiKeyRecord } from '../../../lambda/keys/key-store.js';
import { MemoryLimiterStore } from '../../../lambda/rate-limits/memory-limiter-store.js';
import { keySubjectId, RateLimiter } from '../../../lambda/rate-limits/rate-limiter.js';
import { ManualClock } from '../../../lambda/shared/clock.js';
import { loadConfig, type PlanId, type RateLimits } from '../../../lib/config/index.js';
import { FakeAccountStore, FakeKeyStore, FakeUsagePlanGateway, valueOfGatewayKey } from './fakes.js';

const config = loadConfig();
/** 2026-11-21 10:15:30.123 UTC. */
const T0 = Date.UTC(2026, 10, 21, 10, 15, 30, 123);
const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

const FREE = config.plans.free.limits;
const PRO = config.plans.pro.limits;
const BUSINESS = config.plans.business.limits;
const ENTERPRISE_DEFAULT = config.plans.enterprise.limits;
const AGREED: RateLimits = { perMinute: 20_000, perDay: 5_000_000 };

const KEY_ID = /^key_[0-9a-f]{20}$/;
const NAME_MESSAGE = 'must be a string of 1 to 100 characters';
const PLAN_MESSAGE = 'must be one of free, pro, business, enterprise';
const LIMITS_SHAPE = 'must be {"perMinute": n, "perDay": n} with whole numbers above 0';
const LIMITS_ORDER = 'perDay must be at least perMinute';
const notEnterprise = (plan: string) => `only Enterprise accounts have custom limits, not ${plan}`;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const LIMITER_METHODS = [
  'tryConsume',
  'get',
  'addStrike',
  'restartStrikes',
  'ban',
  'refund',
  'activateKey',
  'setLimits',
  'revokeKey',
  'liftBan',
] as const;

function setup() {
  const accounts = new FakeAccountStore();
  const keys = new FakeKeyStore();
  const limiter = new MemoryLimiterStore();
  const limiterCalls = LIMITER_METHODS.map((method) => vi.spyOn(limiter, method));
  const gateway = new FakeUsagePlanGateway();
  const clock = new ManualClock(T0);
  const controlPlane = new ControlPlane({ accounts, keys, limiter, gateway, clock, config });
  const rateLimiter = new RateLimiter(limiter, clock);

  const limiterItems = () => [...limiter['items'].values()];
  /** Every piece of state and every call the control plane could have put something into, as text. */
  const everything = () =>
    JSON.stringify({
      accounts: accounts.state(),
      keys: keys.state(),
      gateway: gateway.state(),
      limiterItems: limiterItems(),
      limiterCalls: limiterCalls.map((spy) => spy.mock.calls),
    });
  /** The stored data only (no call logs): to show that a refused change changed nothing. */
  const data = () =>
    JSON.stringify({
      accounts: [...accounts.accounts.entries()],
      keys: [...keys.records.entries()],
      plans: [...gateway.plans.entries()],
      members: [...gateway.members.entries()],
      limiterItems: limiterItems(),
    });

  const createAccount = (plan: PlanId = 'free', limits?: RateLimits, accountId = 'acct_1') =>
    controlPlane.createAccount({ name: 'Acme', plan, ...(limits ? { limits } : {}), accountId });
  const createKey = async (name = 'default', accountId = 'acct_1') => controlPlane.createKey(accountId, name);
  const item = (keyId: string) => limiter.get(keySubjectId(keyId));
  const record = (keyId: string): ApiKeyRecord => {
    const found = keys.byKeyId(keyId);
    if (!found) throw new Error(`no record of ${keyId}`);
    return found;
  };
  /**
   * A request of the key through the real limiter. The subject carries limits the authorizer may
   * hold from its cache; they deliberately differ from every plan's, to show the stored ones apply.
   */
  const send = (keyId: string) =>
    rateLimiter.consume({
      id: keySubjectId(keyId),
      limits: { perMinute: 7, perDay: 7 },
      ban: config.plans.free.ban,
      kind: 'key',
    });

  return {
    accounts,
    keys,
    limiter,
    gateway,
    clock,
    controlPlane,
    everything,
    data,
    createAccount,
    createKey,
    item,
    record,
    send,
  };
}

/** The ControlPlaneError a promise rejects with (the test fails if it resolves or rejects with something else). */
async function refusal(promise: Promise<unknown>): Promise<ControlPlaneError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a ControlPlaneError, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ControlPlaneError);
  return error as ControlPlaneError;
}

function expectInvalid(error: ControlPlaneError, field: string, message: string): void {
  expect({
    name: error.name,
    code: error.code,
    status: error.status,
    message: error.message,
    errors: error.errors,
  }).toEqual({
    name: 'ControlPlaneError',
    code: 'invalid_request',
    status: 400,
    message: `${field}: ${message}`,
    errors: [{ field, message }],
  });
}

const limiterItem = (keyId: string, limits: RateLimits, status: 'active' | 'revoked' = 'active') => ({
  id: keySubjectId(keyId),
  status,
  minuteWindow: 0,
  minuteCount: 0,
  dayWindow: 0,
  dayCount: 0,
  minuteLimit: limits.perMinute,
  dayLimit: limits.perDay,
});

describe('ControlPlaneError', () => {
  it('is an Error with a code, the HTTP status its API answers, and optional field errors', () => {
    const error = new ControlPlaneError('key_not_found', 'No key key_1 in account acct_1.', 404);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ControlPlaneError');
    expect(error.code).toBe('key_not_found');
    expect(error.status).toBe(404);
    expect(error.message).toBe('No key key_1 in account acct_1.');
    expect(error.errors).toBeUndefined();
    const invalid = new ControlPlaneError('invalid_request', 'name: bad', 400, [{ field: 'name', message: 'bad' }]);
    expect(invalid.errors).toEqual([{ field: 'name', message: 'bad' }]);
  });

  it('answers 404 account_not_found for an unknown account, from every operation', async () => {
    const { controlPlane } = setup();
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['getAccount', () => controlPlane.getAccount('acct_x')],
      ['createKey', () => controlPlane.createKey('acct_x', 'default')],
      ['listKeys', () => controlPlane.listKeys('acct_x')],
      ['revokeKey', () => controlPlane.revokeKey('acct_x', 'key_1')],
      ['setPlan', () => controlPlane.setPlan('acct_x', { plan: 'pro' })],
      ['liftBan', () => controlPlane.liftBan('acct_x', 'key_1')],
      ['usage', () => controlPlane.usage('acct_x')],
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
    const { controlPlane, createAccount } = setup();
    await createAccount();
    for (const call of [() => controlPlane.revokeKey('acct_1', 'key_x'), () => controlPlane.liftBan('acct_1', 'key_x')]) {
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

describe('ControlPlane.createAccount', () => {
  it('stores a standard-plan account without limits of its own and answers its view', async () => {
    const { controlPlane, accounts, gateway } = setup();
    const view = await controlPlane.createAccount({ name: 'Acme', plan: 'pro', accountId: 'acct_1' });
    expect(view).toEqual({
      accountId: 'acct_1',
      name: 'Acme',
      plan: 'pro',
      limits: PRO,
      customLimits: false,
      createdAt: iso(T0),
    });
    expect([...accounts.accounts.values()]).toEqual([
      { accountId: 'acct_1', name: 'Acme', plan: 'pro', createdAt: iso(T0) },
    ]);
    expect(gateway.calls).toEqual([]);
    expect(await controlPlane.getAccount('acct_1')).toEqual(view);
  });

  it.each([
    ['free', FREE],
    ['business', BUSINESS],
  ] as const)('shows the %s plan\'s limits in force', async (plan, limits) => {
    const { createAccount } = setup();
    expect(await createAccount(plan)).toMatchObject({ plan, limits, customLimits: false });
  });

  it('generates a distinct acct_ id when none is given', async () => {
    const { controlPlane, accounts } = setup();
    const a = await controlPlane.createAccount({ name: 'A', plan: 'free' });
    const b = await controlPlane.createAccount({ name: 'B', plan: 'free' });
    expect(a.accountId).toMatch(/^acct_[0-9a-f]{20}$/);
    expect(b.accountId).toMatch(/^acct_[0-9a-f]{20}$/);
    expect(a.accountId).not.toBe(b.accountId);
    expect([...accounts.accounts.keys()].sort()).toEqual([a.accountId, b.accountId].sort());
  });

  it('trims the name, and accepts 1 to 100 characters after trimming', async () => {
    const { controlPlane } = setup();
    expect((await controlPlane.createAccount({ name: '  Acme Ltd \n', plan: 'free' })).name).toBe('Acme Ltd');
    expect((await controlPlane.createAccount({ name: 'x', plan: 'free' })).name).toBe('x');
    const hundred = 'x'.repeat(100);
    expect((await controlPlane.createAccount({ name: hundred, plan: 'free' })).name).toBe(hundred);
    expect((await controlPlane.createAccount({ name: ` ${hundred} `, plan: 'free' })).name).toBe(hundred);
  });

  it('gives an Enterprise account its own usage plan with its agreed limits', async () => {
    const { controlPlane, accounts, gateway } = setup();
    const view = await controlPlane.createAccount({ name: 'Big', plan: 'enterprise', limits: AGREED, accountId: 'acct_big' });
    expect(view).toEqual({
      accountId: 'acct_big',
      name: 'Big',
      plan: 'enterprise',
      limits: AGREED,
      customLimits: true,
      createdAt: iso(T0),
    });
    expect(gateway.calls).toEqual([{ method: 'createAccountPlan', accountId: 'acct_big', limits: AGREED }]);
    expect(gateway.plans.get('up-acct-acct_big')).toEqual({ accountId: 'acct_big', limits: AGREED });
    expect(accounts.accounts.get('acct_big')).toEqual({
      accountId: 'acct_big',
      name: 'Big',
      plan: 'enterprise',
      limits: AGREED,
      gatewayUsagePlanId: 'up-acct-acct_big',
      createdAt: iso(T0),
    });
  });

  it('gives an Enterprise account without agreed limits the config\'s Enterprise defaults, in its own usage plan', async () => {
    const { createAccount, accounts, gateway } = setup();
    const view = await createAccount('enterprise');
    expect(view.limits).toEqual(ENTERPRISE_DEFAULT);
    expect(gateway.calls).toEqual([{ method: 'createAccountPlan', accountId: 'acct_1', limits: ENTERPRISE_DEFAULT }]);
    expect(accounts.accounts.get('acct_1')).toMatchObject({
      limits: ENTERPRISE_DEFAULT,
      gatewayUsagePlanId: 'up-acct-acct_1',
    });
  });

  it('accepts perDay equal to perMinute', async () => {
    const { createAccount } = setup();
    expect((await createAccount('enterprise', { perMinute: 500, perDay: 500 })).limits).toEqual({ perMinute: 500, perDay: 500 });
  });

  it('refuses an id that is taken, and leaves the existing account as it was', async () => {
    const { controlPlane, createAccount, accounts } = setup();
    await createAccount('pro');
    const before = accounts.accounts.get('acct_1');
    await expect(controlPlane.createAccount({ name: 'Other', plan: 'free', accountId: 'acct_1' })).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
    expect(accounts.accounts.get('acct_1')).toEqual(before);
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
      const { controlPlane, accounts, gateway } = setup();
      const error = await refusal(controlPlane.createAccount({ ...(input as { name: unknown; plan: unknown }), accountId: 'acct_1' }));
      expectInvalid(error, field, message);
      expect(accounts.accounts.size).toBe(0);
      expect(gateway.calls).toEqual([]);
    });
  });
});

describe('ControlPlane.createKey', () => {
  it('returns a well-formed secret once, with a view of the key that holds neither the secret nor its hash', async () => {
    const { createAccount, createKey } = setup();
    await createAccount('free');
    const { secret, key } = await createKey('ci');
    expect(isWellFormedApiKey(secret)).toBe(true);
    expect(secret.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(key.keyId).toMatch(KEY_ID);
    expect(key).toEqual({
      keyId: key.keyId,
      name: 'ci',
      prefix: secret.slice(0, 12),
      last4: secret.slice(-4),
      status: 'active',
      createdAt: iso(T0),
    });
    const text = JSON.stringify(key);
    expect(text).not.toContain(secret.slice(12, -4));
    expect(text).not.toContain(sha256(secret));
  });

  it('stores only the SHA-256 of the secret, its prefix and last 4, with the account\'s plan and the internal key\'s id and value', async () => {
    const { createAccount, createKey, keys } = setup();
    await createAccount('pro');
    const { secret, key } = await createKey('ci');
    expect([...keys.records.values()]).toEqual([
      {
        keyHash: sha256(secret),
        keyId: key.keyId,
        accountId: 'acct_1',
        name: 'ci',
        prefix: secret.slice(0, 12),
        last4: secret.slice(-4),
        status: 'active',
        plan: 'pro',
        gatewayKeyId: 'gk-1',
        // The usage identifier the authorizer returns, as CreateApiKey answered it: no GetApiKey later.
        gatewayKeyValue: valueOfGatewayKey('gk-1'),
        createdAt: iso(T0),
      },
    ]);
    expect([...keys.records.keys()]).toEqual([sha256(secret)]);
  });

  it('puts the secret nowhere: not in any store, limiter item, gateway call or call argument', async () => {
    const { createAccount, createKey, everything, gateway, limiter } = setup();
    await createAccount('free');
    await createAccount('enterprise', AGREED, 'acct_2');
    const secrets: string[] = [];
    for (const accountId of ['acct_1', 'acct_2', 'acct_1']) secrets.push((await createKey('k', accountId)).secret);
    gateway.quotaReached = true;
    secrets.push((await createKey('pooled', 'acct_1')).secret);

    const text = everything();
    for (const secret of secrets) {
      // The search sees the stored records (their hash is there)...
      expect(text).toContain(sha256(secret));
      // ...and no part of the secret beyond what may be shown.
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(API_KEY_PREFIX.length));
      expect(text).not.toContain(secret.slice(12, -4));
      // The hash is the key store's business only.
      expect(JSON.stringify(gateway.state())).not.toContain(sha256(secret));
      expect(JSON.stringify([...limiter['items'].values()])).not.toContain(sha256(secret));
    }
    expect(new Set(secrets).size).toBe(4);
  });

  it('creates the key\'s limiter item active with the account\'s plan limits, so the key works at once', async () => {
    const { createAccount, createKey, item, send } = setup();
    await createAccount('pro');
    const { key } = await createKey();
    expect(await item(key.keyId)).toEqual(limiterItem(key.keyId, PRO));
    const first = await send(key.keyId);
    expect(first.outcome).toBe('allowed');
    expect(first.state.minute).toMatchObject({ limit: PRO.perMinute, used: 1 });
    expect(first.state.day).toMatchObject({ limit: PRO.perDay, used: 1 });
  });

  it.each([
    ['free', 'up-free', true],
    ['pro', 'up-pro', true],
    ['business', 'up-business', false],
  ] as const)('binds a %s key to its own internal key in the plan\'s usage plan', async (plan, usagePlanId, poolable) => {
    const { createAccount, createKey, gateway } = setup();
    await createAccount(plan);
    const { key } = await createKey();
    expect(gateway.calls).toEqual([{ method: 'createKey', keyId: key.keyId, usagePlanId, poolable }]);
    expect(gateway.keysIn(usagePlanId)).toEqual(['gk-1']);
    expect(gateway.keyOwners.get('gk-1')).toBe(key.keyId);
  });

  it('binds an Enterprise key to the account\'s own usage plan, with the agreed limits in the record and the limiter', async () => {
    const { createAccount, createKey, gateway, item, record } = setup();
    await createAccount('enterprise', AGREED);
    gateway.calls.length = 0;
    const { key } = await createKey();
    expect(gateway.calls).toEqual([
      { method: 'createKey', keyId: key.keyId, usagePlanId: 'up-acct-acct_1', poolable: false },
    ]);
    expect(gateway.keysIn('up-acct-acct_1')).toEqual(['gk-1']);
    expect(record(key.keyId)).toMatchObject({ plan: 'enterprise', limits: AGREED, gatewayKeyId: 'gk-1' });
    expect(await item(key.keyId)).toEqual(limiterItem(key.keyId, AGREED));
  });

  it('stores a pooled key (no gatewayKeyId) when the gateway answers undefined, and the key still works', async () => {
    const { createAccount, createKey, gateway, record, item, send } = setup();
    await createAccount('free');
    gateway.quotaReached = true;
    const { key } = await createKey();
    expect(record(key.keyId)).not.toHaveProperty('gatewayKeyId');
    expect(record(key.keyId)).not.toHaveProperty('gatewayKeyValue');
    expect(gateway.members.size).toBe(0);
    expect(await item(key.keyId)).toEqual(limiterItem(key.keyId, FREE));
    expect((await send(key.keyId)).outcome).toBe('allowed');
  });

  it('stores nothing when the gateway refuses the internal key (a Business key may not be pooled)', async () => {
    const { createAccount, createKey, gateway, keys, limiter } = setup();
    await createAccount('business');
    gateway.quotaReached = true;
    await expect(createKey()).rejects.toThrow('API key quota reached');
    expect(keys.records.size).toBe(0);
    expect([...limiter['items'].values()]).toEqual([]);
  });

  it('gives every key its own secret, hash and id', async () => {
    const { createAccount, createKey, keys } = setup();
    await createAccount('free');
    const created = await Promise.all([createKey('a'), createKey('b'), createKey('c')]);
    expect(new Set(created.map((c) => c.secret)).size).toBe(3);
    expect(new Set(created.map((c) => c.key.keyId)).size).toBe(3);
    expect(keys.records.size).toBe(3);
  });

  it('refuses a bad name (400) without creating anything', async () => {
    const { controlPlane, createAccount, gateway, keys, limiter } = setup();
    await createAccount('free');
    for (const name of [undefined, '', '   ', 'x'.repeat(101), 7]) {
      expectInvalid(await refusal(controlPlane.createKey('acct_1', name)), 'name', NAME_MESSAGE);
    }
    expect(gateway.calls).toEqual([]);
    expect(keys.records.size).toBe(0);
    expect([...limiter['items'].values()]).toEqual([]);
  });

  it('refuses an unknown account (404) without creating anything', async () => {
    const { controlPlane, gateway, keys } = setup();
    expect((await refusal(controlPlane.createKey('acct_x', 'default'))).code).toBe('account_not_found');
    expect(gateway.calls).toEqual([]);
    expect(keys.records.size).toBe(0);
  });
});

describe('ControlPlane.listKeys', () => {
  it('lists the account\'s keys by creation time (then id), never with a secret or a hash', async () => {
    const { controlPlane, createAccount, createKey, clock } = setup();
    await createAccount('free');
    await createAccount('free', undefined, 'acct_other');
    clock.set(T0 + 2_000);
    const late = await createKey('late');
    clock.set(T0);
    const early = await createKey('early');
    clock.set(T0 + 1_000);
    const middle = [await createKey('middle-1'), await createKey('middle-2')];
    await createKey('not mine', 'acct_other');

    const views = await controlPlane.listKeys('acct_1');
    const middleIds = middle.map((m) => m.key.keyId).sort();
    expect(views.map((v) => v.keyId)).toEqual([early.key.keyId, ...middleIds, late.key.keyId]);
    expect(views[0]).toEqual(early.key);
    expect(views.find((v) => v.keyId === late.key.keyId)).toEqual(late.key);
    const text = JSON.stringify(views);
    for (const { secret } of [late, early, ...middle]) {
      expect(text).not.toContain(secret.slice(12, -4));
      expect(text).not.toContain(sha256(secret));
    }
    expect(text).not.toContain('keyHash');
    expect(text).not.toContain('gatewayKeyId');
  });

  it('shows lastUsedAt from the limiter item once the key was used', async () => {
    const { controlPlane, createAccount, createKey, clock, send } = setup();
    await createAccount('free');
    const used = await createKey('used');
    const unused = await createKey('unused');
    clock.set(T0 + 5_000);
    await send(used.key.keyId);
    clock.set(T0 + 9_000);
    const views = await controlPlane.listKeys('acct_1');
    expect(views.find((v) => v.keyId === used.key.keyId)).toEqual({ ...used.key, lastUsedAt: iso(T0 + 5_000) });
    expect(views.find((v) => v.keyId === unused.key.keyId)).toEqual(unused.key);
    expect(views.find((v) => v.keyId === unused.key.keyId)).not.toHaveProperty('lastUsedAt');
  });

  it('lists revoked keys with their revocation time', async () => {
    const { controlPlane, createAccount, createKey, clock } = setup();
    await createAccount('free');
    const { key } = await createKey();
    clock.set(T0 + 60_000);
    await controlPlane.revokeKey('acct_1', key.keyId);
    expect(await controlPlane.listKeys('acct_1')).toEqual([{ ...key, status: 'revoked', revokedAt: iso(T0 + 60_000) }]);
  });

  it('lists no keys of an account without any', async () => {
    const { controlPlane, createAccount } = setup();
    await createAccount('free');
    expect(await controlPlane.listKeys('acct_1')).toEqual([]);
  });
});

describe('ControlPlane.revokeKey', () => {
  /** How long a revoked key keeps its internal key: the authorizer's key cache, plus the clock margin. */
  const GRACE_MS = (config.auth.keyCacheSeconds + RELEASE_MARGIN_SECONDS) * 1000;

  it('revokes the key in the limiter and marks the record revoked, keeping its internal key while an authorizer may hold it', async () => {
    const { controlPlane, createAccount, createKey, clock, gateway, item, record, send } = setup();
    await createAccount('pro');
    const { key, secret } = await createKey();
    await send(key.keyId);
    gateway.calls.length = 0;
    clock.set(T0 + 60_000);

    const view = await controlPlane.revokeKey('acct_1', key.keyId);
    expect(view).toEqual({ ...key, status: 'revoked', revokedAt: iso(T0 + 60_000) });
    expect(await item(key.keyId)).toMatchObject({ status: 'revoked', minuteCount: 1, dayCount: 1 });
    const revoked = {
      keyHash: sha256(secret),
      keyId: key.keyId,
      accountId: 'acct_1',
      name: 'default',
      prefix: key.prefix,
      last4: key.last4,
      status: 'revoked',
      plan: 'pro',
      createdAt: iso(T0),
      revokedAt: iso(T0 + 60_000),
    };
    // An authorizer may still hold the active record (its cache): a request with the key must still
    // pass the usage-plan backstop, to get the limiter's 401 with rate-limit headers.
    expect(record(key.keyId)).toEqual({ ...revoked, gatewayKeyId: 'gk-1', gatewayKeyValue: valueOfGatewayKey('gk-1') });
    expect(gateway.calls).toEqual([]);
    expect(gateway.members.get('gk-1')).toBe('up-pro');
    expect((await send(key.keyId)).outcome).toBe('revoked');

    clock.set(T0 + 60_000 + GRACE_MS - 1);
    await controlPlane.revokeKey('acct_1', key.keyId);
    expect(gateway.calls).toEqual([]);

    // Past the grace, the internal key is deleted (it counts against the quota), and the record forgets it.
    clock.set(T0 + 60_000 + GRACE_MS);
    expect(await controlPlane.revokeKey('acct_1', key.keyId)).toEqual(view);
    expect(gateway.calls).toEqual([{ method: 'deleteKey', gatewayKeyId: 'gk-1' }]);
    expect(record(key.keyId)).toEqual(revoked);
    expect(gateway.members.size).toBe(0);
  });

  it('with no authorizer key cache, deletes the internal key at once', async () => {
    const accounts = new FakeAccountStore();
    const keys = new FakeKeyStore();
    const gateway = new FakeUsagePlanGateway();
    const controlPlane = new ControlPlane({
      accounts,
      keys,
      limiter: new MemoryLimiterStore(),
      gateway,
      clock: new ManualClock(T0),
      config: loadConfig({ auth: { keyCacheSeconds: 0 } }),
    });
    await controlPlane.createAccount({ accountId: 'acct_1', name: 'Acme', plan: 'pro' });
    const { key } = await controlPlane.createKey('acct_1', 'k');
    await controlPlane.revokeKey('acct_1', key.keyId);
    expect(gateway.calls.filter((c) => c.method === 'deleteKey')).toEqual([{ method: 'deleteKey', gatewayKeyId: 'gk-1' }]);
    expect(keys.byKeyId(key.keyId)).not.toHaveProperty('gatewayKeyId');
  });

  it('is idempotent: once the internal key is released, revoking again changes nothing and answers the first revocation', async () => {
    const { controlPlane, createAccount, createKey, clock, gateway, keys, limiter } = setup();
    await createAccount('free');
    const { key } = await createKey();
    clock.set(T0 + 60_000);
    const first = await controlPlane.revokeKey('acct_1', key.keyId);
    clock.set(T0 + 60_000 + GRACE_MS);
    await controlPlane.revokeKey('acct_1', key.keyId);
    const gatewayCalls = gateway.calls.length;
    const keyUpdates = keys.calls.filter((c) => c.method === 'update').length;
    const revokes = vi.mocked(limiter.revokeKey).mock.calls.length;

    clock.set(T0 + 120_000 + GRACE_MS);
    expect(await controlPlane.revokeKey('acct_1', key.keyId)).toEqual(first);
    expect(gateway.calls).toHaveLength(gatewayCalls);
    expect(keys.calls.filter((c) => c.method === 'update')).toHaveLength(keyUpdates);
    expect(vi.mocked(limiter.revokeKey).mock.calls).toHaveLength(revokes);
  });

  it('releases the account\'s due internal keys before creating a key (they hold the API key quota)', async () => {
    const { controlPlane, createAccount, createKey, clock, gateway, record } = setup();
    await createAccount('pro');
    const { key } = await createKey('old');
    await controlPlane.revokeKey('acct_1', key.keyId);
    gateway.calls.length = 0;
    clock.set(T0 + GRACE_MS);
    const fresh = await createKey('new');
    expect(gateway.calls).toEqual([
      { method: 'deleteKey', gatewayKeyId: 'gk-1' },
      { method: 'createKey', keyId: fresh.key.keyId, usagePlanId: 'up-pro', poolable: true },
    ]);
    expect(record(key.keyId)).not.toHaveProperty('gatewayKeyId');
  });

  it('deletes no internal key for a pooled key', async () => {
    const { controlPlane, createAccount, createKey, clock, gateway, item } = setup();
    await createAccount('free');
    gateway.quotaReached = true;
    const { key } = await createKey();
    gateway.calls.length = 0;
    await controlPlane.revokeKey('acct_1', key.keyId);
    clock.set(T0 + GRACE_MS);
    await controlPlane.revokeKey('acct_1', key.keyId);
    expect(gateway.calls).toEqual([]);
    expect(await item(key.keyId)).toMatchObject({ status: 'revoked' });
  });

  it('leaves the account\'s other keys alone', async () => {
    const { controlPlane, createAccount, createKey, clock, gateway, record, send } = setup();
    await createAccount('free');
    const revoked = await createKey('a');
    const kept = await createKey('b');
    await controlPlane.revokeKey('acct_1', revoked.key.keyId);
    clock.set(T0 + GRACE_MS);
    await controlPlane.revokeKey('acct_1', revoked.key.keyId);
    expect(record(kept.key.keyId)).toMatchObject({ status: 'active', gatewayKeyId: 'gk-2', gatewayKeyValue: valueOfGatewayKey('gk-2') });
    expect(gateway.members.get('gk-2')).toBe('up-free');
    expect((await send(kept.key.keyId)).outcome).toBe('allowed');
  });

  it('answers 404 for a key of another account and leaves that key alone', async () => {
    const { controlPlane, createAccount, createKey, gateway, record, item } = setup();
    await createAccount('free');
    await createAccount('free', undefined, 'acct_2');
    const { key } = await createKey('theirs', 'acct_2');
    const error = await refusal(controlPlane.revokeKey('acct_1', key.keyId));
    expect([error.code, error.status, error.message]).toEqual([
      'key_not_found',
      404,
      `No key ${key.keyId} in account acct_1.`,
    ]);
    expect(record(key.keyId).status).toBe('active');
    expect((await item(key.keyId))?.status).toBe('active');
    expect(gateway.members.get('gk-1')).toBe('up-free');
  });

  it('is completed by running it again when the limiter could not be reached', async () => {
    const { controlPlane, createAccount, createKey, limiter, record } = setup();
    await createAccount('free');
    const { key } = await createKey();
    vi.mocked(limiter.revokeKey).mockRejectedValueOnce(new Error('limiter unavailable'));
    await expect(controlPlane.revokeKey('acct_1', key.keyId)).rejects.toThrow('limiter unavailable');
    expect(record(key.keyId).status).toBe('active');
    await controlPlane.revokeKey('acct_1', key.keyId);
    expect(record(key.keyId).status).toBe('revoked');
    expect((await limiter.get(keySubjectId(key.keyId)))?.status).toBe('revoked');
  });

  it('is completed by running it again when the internal key could not be deleted', async () => {
    const { controlPlane, createAccount, createKey, clock, gateway, record } = setup();
    await createAccount('pro');
    const { key } = await createKey();
    await controlPlane.revokeKey('acct_1', key.keyId);
    clock.set(T0 + GRACE_MS);
    gateway.fail('deleteKey', Object.assign(new Error('Too Many Requests'), { name: 'TooManyRequestsException' }));
    await expect(controlPlane.revokeKey('acct_1', key.keyId)).rejects.toThrow('Too Many Requests');
    expect(record(key.keyId)).toMatchObject({ status: 'revoked', gatewayKeyId: 'gk-1' });

    await controlPlane.revokeKey('acct_1', key.keyId);
    expect(gateway.members.has('gk-1')).toBe(false);
    expect(record(key.keyId)).not.toHaveProperty('gatewayKeyId');
  });
});

describe('ControlPlane.setPlan', () => {
  /** An account with two bound keys, one pooled key and one revoked key. */
  async function accountWithKeys(plan: PlanId, limits?: RateLimits) {
    const context = setup();
    const { controlPlane, createAccount, createKey, gateway, clock } = context;
    await createAccount(plan, limits);
    const a = (await createKey('a')).key.keyId;
    const b = (await createKey('b')).key.keyId;
    const revoked = (await createKey('revoked')).key.keyId;
    await controlPlane.revokeKey('acct_1', revoked);
    // Revoked long enough ago that its internal key is released (see revokeKey).
    clock.set(T0 + 60_000);
    await controlPlane.revokeKey('acct_1', revoked);
    let pooled: string | undefined;
    if (plan === 'free' || plan === 'pro') {
      gateway.quotaReached = true;
      pooled = (await createKey('pooled')).key.keyId;
      gateway.quotaReached = false;
    }
    gateway.calls.length = 0;
    clock.set(T0 + 3_600_000);
    return { ...context, a, b, revoked, pooled, gk: { a: 'gk-1', b: 'gk-2', revoked: 'gk-3' } };
  }

  const sortedCalls = <T>(calls: T[]) => [...calls].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));

  it('free → pro moves the internal keys between the plans\' usage plans and updates limiter limits and records', async () => {
    const { controlPlane, gateway, accounts, record, item, a, b, revoked, pooled, gk, send } = await accountWithKeys('free');
    const revokedBefore = record(revoked);
    const revokedItemBefore = await item(revoked);

    const view = await controlPlane.setPlan('acct_1', { plan: 'pro' });
    expect(view).toEqual({
      accountId: 'acct_1',
      name: 'Acme',
      plan: 'pro',
      limits: PRO,
      customLimits: false,
      createdAt: iso(T0),
      updatedAt: iso(T0 + 3_600_000),
    });
    expect(accounts.accounts.get('acct_1')).toEqual({
      accountId: 'acct_1',
      name: 'Acme',
      plan: 'pro',
      createdAt: iso(T0),
      updatedAt: iso(T0 + 3_600_000),
    });
    expect(sortedCalls(gateway.calls)).toEqual([
      { method: 'moveKey', gatewayKeyId: gk.a, from: 'up-free', to: 'up-pro' },
      { method: 'moveKey', gatewayKeyId: gk.b, from: 'up-free', to: 'up-pro' },
    ]);
    expect(gateway.keysIn('up-pro').sort()).toEqual([gk.a, gk.b]);
    expect(gateway.keysIn('up-free')).toEqual([]);
    for (const keyId of [a, b, pooled as string]) {
      expect(await item(keyId)).toMatchObject({ status: 'active', minuteLimit: PRO.perMinute, dayLimit: PRO.perDay });
      expect(record(keyId)).toMatchObject({ plan: 'pro' });
      expect(record(keyId)).not.toHaveProperty('limits');
    }
    // A move keeps the internal key, so each record keeps its id and value; the pooled one has neither.
    expect(record(a)).toMatchObject({ gatewayKeyId: gk.a, gatewayKeyValue: valueOfGatewayKey(gk.a) });
    expect(record(b)).toMatchObject({ gatewayKeyId: gk.b, gatewayKeyValue: valueOfGatewayKey(gk.b) });
    expect(Object.keys(record(pooled as string)).filter((k) => k.startsWith('gateway'))).toEqual([]);
    // The revoked key is left as it was.
    expect(record(revoked)).toEqual(revokedBefore);
    expect(await item(revoked)).toEqual(revokedItemBefore);
    expect(await item(revoked)).toMatchObject({ status: 'revoked', minuteLimit: FREE.perMinute });
    // The new limits apply to the very next request.
    expect((await send(a)).state.minute.limit).toBe(PRO.perMinute);
  });

  it('free → enterprise creates the account\'s usage plan with the agreed limits and moves the keys into it', async () => {
    const { controlPlane, gateway, accounts, record, item, a, b, pooled, gk, send } = await accountWithKeys('free');
    const view = await controlPlane.setPlan('acct_1', { plan: 'enterprise', limits: AGREED });
    expect(view).toMatchObject({ plan: 'enterprise', limits: AGREED, customLimits: true });
    expect(gateway.calls[0]).toEqual({ method: 'createAccountPlan', accountId: 'acct_1', limits: AGREED });
    // Moved keys keep their internal key; the pooled one gets its own (Enterprise never pools).
    expect(sortedCalls(gateway.calls.slice(1))).toEqual(
      sortedCalls([
        { method: 'moveKey', gatewayKeyId: gk.a, from: 'up-free', to: 'up-acct-acct_1' },
        { method: 'moveKey', gatewayKeyId: gk.b, from: 'up-free', to: 'up-acct-acct_1' },
        { method: 'createKey', keyId: pooled as string, usagePlanId: 'up-acct-acct_1', poolable: false },
      ]),
    );
    expect(gateway.plans.get('up-acct-acct_1')).toEqual({ accountId: 'acct_1', limits: AGREED });
    const ownKey = record(pooled as string)?.gatewayKeyId as string;
    expect(ownKey).toBeTruthy();
    // The formerly pooled key stores its new internal key's value with its id; the moved ones keep theirs.
    expect(record(pooled as string).gatewayKeyValue).toBe(valueOfGatewayKey(ownKey));
    expect(record(a)).toMatchObject({ gatewayKeyId: gk.a, gatewayKeyValue: valueOfGatewayKey(gk.a) });
    expect(gateway.keysIn('up-acct-acct_1').sort()).toEqual([gk.a, gk.b, ownKey].sort());
    expect(accounts.accounts.get('acct_1')).toEqual({
      accountId: 'acct_1',
      name: 'Acme',
      plan: 'enterprise',
      limits: AGREED,
      gatewayUsagePlanId: 'up-acct-acct_1',
      createdAt: iso(T0),
      updatedAt: iso(T0 + 3_600_000),
    });
    for (const keyId of [a, b, pooled as string]) {
      expect(await item(keyId)).toMatchObject({ minuteLimit: AGREED.perMinute, dayLimit: AGREED.perDay });
      expect(record(keyId)).toMatchObject({ plan: 'enterprise', limits: AGREED });
    }
    expect((await send(b)).state.day.limit).toBe(AGREED.perDay);
  });

  it('free → enterprise without agreed limits uses the config\'s Enterprise defaults', async () => {
    const { controlPlane, gateway, item, a } = await accountWithKeys('free');
    expect(await controlPlane.setPlan('acct_1', { plan: 'enterprise' })).toMatchObject({ limits: ENTERPRISE_DEFAULT });
    expect(gateway.calls[0]).toEqual({ method: 'createAccountPlan', accountId: 'acct_1', limits: ENTERPRISE_DEFAULT });
    expect(await item(a)).toMatchObject({
      minuteLimit: ENTERPRISE_DEFAULT.perMinute,
      dayLimit: ENTERPRISE_DEFAULT.perDay,
    });
  });

  it('enterprise → enterprise with new limits updates the account\'s usage plan without moving any key', async () => {
    const { controlPlane, gateway, accounts, record, item, a, b, revoked, gk, send } = await accountWithKeys('enterprise', AGREED);
    const raised = { perMinute: 30_000, perDay: 9_000_000 };
    const view = await controlPlane.setPlan('acct_1', { plan: 'enterprise', limits: raised });
    expect(view).toMatchObject({ plan: 'enterprise', limits: raised, customLimits: true, updatedAt: iso(T0 + 3_600_000) });
    expect(gateway.calls).toEqual([{ method: 'updateAccountPlan', usagePlanId: 'up-acct-acct_1', limits: raised }]);
    expect(gateway.plans.get('up-acct-acct_1')).toEqual({ accountId: 'acct_1', limits: raised });
    expect(gateway.keysIn('up-acct-acct_1').sort()).toEqual([gk.a, gk.b]);
    expect(accounts.accounts.get('acct_1')).toMatchObject({ limits: raised, gatewayUsagePlanId: 'up-acct-acct_1' });
    for (const keyId of [a, b]) {
      expect(await item(keyId)).toMatchObject({ minuteLimit: raised.perMinute, dayLimit: raised.perDay });
      expect(record(keyId)).toMatchObject({ plan: 'enterprise', limits: raised });
    }
    expect(record(revoked)).toMatchObject({ status: 'revoked', limits: AGREED });
    expect((await send(a)).state.minute.limit).toBe(raised.perMinute);
  });

  it('enterprise → business moves the keys back to the shared usage plan, then deletes the account\'s plan', async () => {
    const { controlPlane, gateway, accounts, record, item, a, b, revoked, gk } = await accountWithKeys('enterprise', AGREED);
    const revokedBefore = record(revoked);
    const view = await controlPlane.setPlan('acct_1', { plan: 'business' });
    expect(view).toEqual({
      accountId: 'acct_1',
      name: 'Acme',
      plan: 'business',
      limits: BUSINESS,
      customLimits: false,
      createdAt: iso(T0),
      updatedAt: iso(T0 + 3_600_000),
    });
    expect(sortedCalls(gateway.calls.slice(0, 2))).toEqual([
      { method: 'moveKey', gatewayKeyId: gk.a, from: 'up-acct-acct_1', to: 'up-business' },
      { method: 'moveKey', gatewayKeyId: gk.b, from: 'up-acct-acct_1', to: 'up-business' },
    ]);
    expect(gateway.calls.slice(2)).toEqual([{ method: 'deleteAccountPlan', usagePlanId: 'up-acct-acct_1' }]);
    expect(gateway.plans.has('up-acct-acct_1')).toBe(false);
    expect(gateway.keysIn('up-business').sort()).toEqual([gk.a, gk.b]);
    expect(accounts.accounts.get('acct_1')).toEqual({
      accountId: 'acct_1',
      name: 'Acme',
      plan: 'business',
      createdAt: iso(T0),
      updatedAt: iso(T0 + 3_600_000),
    });
    for (const keyId of [a, b]) {
      expect(await item(keyId)).toMatchObject({ minuteLimit: BUSINESS.perMinute, dayLimit: BUSINESS.perDay });
      expect(record(keyId)).toMatchObject({ plan: 'business' });
      expect(record(keyId)).not.toHaveProperty('limits');
    }
    expect(record(revoked)).toEqual(revokedBefore);
  });

  it('moves a revoked key whose internal key is not released yet with the others, so the old usage plan can go', async () => {
    const { controlPlane, createAccount, createKey, gateway, record } = setup();
    await createAccount('enterprise', AGREED);
    const kept = (await createKey('kept')).key.keyId;
    const revoked = (await createKey('revoked')).key.keyId;
    await controlPlane.revokeKey('acct_1', revoked);
    gateway.calls.length = 0;

    await controlPlane.setPlan('acct_1', { plan: 'business' });
    expect(sortedCalls(gateway.calls.filter((c) => c.method === 'moveKey'))).toEqual([
      { method: 'moveKey', gatewayKeyId: record(kept).gatewayKeyId, from: 'up-acct-acct_1', to: 'up-business' },
      { method: 'moveKey', gatewayKeyId: record(revoked).gatewayKeyId, from: 'up-acct-acct_1', to: 'up-business' },
    ]);
    expect(gateway.plans.has('up-acct-acct_1')).toBe(false);
    // Still revoked, still Enterprise in its record (a revoked key's record is not moved), still bound until released.
    expect(record(revoked)).toMatchObject({ status: 'revoked', plan: 'enterprise', gatewayKeyId: 'gk-2' });
    expect(gateway.members.get('gk-2')).toBe('up-business');
  });

  it('pro → free on an account whose keys are all pooled moves nothing but still applies the limits', async () => {
    const { controlPlane, createAccount, createKey, gateway, item, send } = setup();
    await createAccount('pro');
    gateway.quotaReached = true;
    const { key } = await createKey();
    gateway.calls.length = 0;
    await controlPlane.setPlan('acct_1', { plan: 'free' });
    expect(gateway.calls).toEqual([]);
    expect(await item(key.keyId)).toMatchObject({ minuteLimit: FREE.perMinute, dayLimit: FREE.perDay });
    expect((await send(key.keyId)).state.minute.limit).toBe(FREE.perMinute);
  });

  it('lowered limits refuse the next request of a key that is over them', async () => {
    const { controlPlane, createAccount, createKey, send } = setup();
    await createAccount('pro');
    const { key } = await createKey();
    for (let i = 0; i < FREE.perMinute; i++) await send(key.keyId);
    expect((await send(key.keyId)).outcome).toBe('allowed');
    await controlPlane.setPlan('acct_1', { plan: 'free' });
    expect(await send(key.keyId)).toMatchObject({
      outcome: 'rate_limited',
      window: 'minute',
      state: { minute: { limit: FREE.perMinute, used: FREE.perMinute + 1 } },
    });
  });

  it('is completed by running it again after a key could not be moved', async () => {
    const { controlPlane, gateway, accounts, record, a, b, gk } = await accountWithKeys('free');
    gateway.fail('moveKey', new Error('Too Many Requests'), 1);
    await expect(controlPlane.setPlan('acct_1', { plan: 'pro' })).rejects.toThrow('Too Many Requests');
    expect(accounts.accounts.get('acct_1')?.plan).toBe('free');

    await controlPlane.setPlan('acct_1', { plan: 'pro' });
    expect(gateway.keysIn('up-pro').sort()).toEqual([gk.a, gk.b]);
    expect(accounts.accounts.get('acct_1')?.plan).toBe('pro');
    expect([record(a).plan, record(b).plan]).toEqual(['pro', 'pro']);
  });

  // Fails against the current source: the account is replaced (without its gatewayUsagePlanId)
  // before the plan is deleted, so when the deletion fails a second run no longer knows the plan
  // and never deletes it, although setPlan promises that running a change again completes it.
  it('is completed by running it again after the account\'s usage plan could not be deleted (enterprise → business)', async () => {
    const { controlPlane, gateway } = await accountWithKeys('enterprise', AGREED);
    gateway.fail('deleteAccountPlan', new Error('Too Many Requests'));
    await expect(controlPlane.setPlan('acct_1', { plan: 'business' })).rejects.toThrow('Too Many Requests');

    await controlPlane.setPlan('acct_1', { plan: 'business' });
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
      const { controlPlane, gateway, data } = await accountWithKeys('free');
      const before = data();
      expectInvalid(await refusal(controlPlane.setPlan('acct_1', input as { plan: unknown })), field, message);
      expect(data()).toBe(before);
      expect(gateway.calls).toEqual([]);
    });
  });
});

describe('ControlPlane.liftBan', () => {
  async function bannedKey() {
    const context = setup();
    await context.createAccount('free');
    const { key } = await context.createKey();
    await context.limiter.restartStrikes(keySubjectId(key.keyId), undefined, T0);
    await context.limiter.ban(keySubjectId(key.keyId), T0 + 900_000, T0);
    return { ...context, keyId: key.keyId };
  }

  it('clears a running ban and says the key was banned; the key works again', async () => {
    const { controlPlane, item, keyId, send } = await bannedKey();
    expect((await send(keyId)).outcome).toBe('banned');
    expect(await controlPlane.liftBan('acct_1', keyId)).toEqual({ keyId, wasBanned: true });
    const after = await item(keyId);
    expect(after).not.toHaveProperty('banUntil');
    expect(after).not.toHaveProperty('strikeWindowStart');
    expect(after?.strikeCount).toBe(0);
    expect((await send(keyId)).outcome).toBe('allowed');
  });

  it('says wasBanned false for a key that is not banned, or whose ban has ended', async () => {
    const { controlPlane, clock, keyId, createKey, limiter } = await bannedKey();
    const { key } = await createKey('never banned');
    expect(await controlPlane.liftBan('acct_1', key.keyId)).toEqual({ keyId: key.keyId, wasBanned: false });
    clock.set(T0 + 900_000);
    expect(await controlPlane.liftBan('acct_1', keyId)).toEqual({ keyId, wasBanned: false });
    expect(vi.mocked(limiter.liftBan).mock.calls).toEqual([[keySubjectId(key.keyId)], [keySubjectId(keyId)]]);
  });

  it('answers 404 for a key of another account and leaves its ban', async () => {
    const { controlPlane, createAccount, item, keyId } = await bannedKey();
    await createAccount('free', undefined, 'acct_2');
    const error = await refusal(controlPlane.liftBan('acct_2', keyId));
    expect([error.code, error.status]).toEqual(['key_not_found', 404]);
    expect((await item(keyId))?.banUntil).toBe(T0 + 900_000);
  });
});

describe('ControlPlane.usage', () => {
  /** T0 + 1 minute: 10:16:30.123, in the same day. */
  const T1 = T0 + 60_000;

  it('reports the counts of the current windows only, against each key\'s limits, with resets and bans', async () => {
    const { controlPlane, createAccount, createKey, clock, limiter, send } = setup();
    await createAccount('pro');
    const a = (await createKey('a')).key;
    clock.set(T0 + 1_000);
    const b = (await createKey('b')).key;
    clock.set(T0 + 2_000);
    const c = (await createKey('c')).key;

    clock.set(T0 + 3_000);
    for (let i = 0; i < 3; i++) await send(a.keyId);
    clock.set(T0 - DAY_MS);
    for (let i = 0; i < 2; i++) await send(b.keyId);
    clock.set(T1);
    await send(a.keyId);
    await limiter.ban(keySubjectId(c.keyId), T1 + 600_000, T1);

    const minute = (used: number) => ({
      used,
      limit: PRO.perMinute,
      remaining: PRO.perMinute - used,
      resetsAt: '2026-11-21T10:17:00.000Z',
    });
    const day = (used: number) => ({
      used,
      limit: PRO.perDay,
      remaining: PRO.perDay - used,
      resetsAt: '2026-11-22T00:00:00.000Z',
    });
    expect(await controlPlane.usage('acct_1')).toEqual({
      accountId: 'acct_1',
      plan: 'pro',
      limits: PRO,
      keys: [
        { ...a, lastUsedAt: iso(T1), minute: minute(1), day: day(4) },
        // Used yesterday only: nothing counts today.
        { ...b, lastUsedAt: iso(T0 - DAY_MS), minute: minute(0), day: day(0) },
        { ...c, minute: minute(0), day: day(0), bannedUntil: iso(T1 + 600_000) },
      ],
    });
  });

  it('shows the limits stored for the key, and never a negative remainder', async () => {
    const { controlPlane, createAccount, createKey, limiter, send } = setup();
    await createAccount('pro');
    const { key } = await createKey();
    for (let i = 0; i < 4; i++) await send(key.keyId);
    await limiter.setLimits(keySubjectId(key.keyId), { perMinute: 10, perDay: 3 });
    const [usage] = (await controlPlane.usage('acct_1')).keys;
    expect(usage?.minute).toMatchObject({ used: 4, limit: 10, remaining: 6 });
    expect(usage?.day).toMatchObject({ used: 4, limit: 3, remaining: 0 });
  });

  it('shows no ban once it has ended', async () => {
    const { controlPlane, createAccount, createKey, clock, limiter } = setup();
    await createAccount('free');
    const { key } = await createKey();
    await limiter.ban(keySubjectId(key.keyId), T0 + 1_000, T0);
    expect((await controlPlane.usage('acct_1')).keys[0]).toHaveProperty('bannedUntil', iso(T0 + 1_000));
    clock.set(T0 + 1_000);
    expect((await controlPlane.usage('acct_1')).keys[0]).not.toHaveProperty('bannedUntil');
  });

  it('falls back to the account\'s limits for a key without a limiter item, and lists revoked keys', async () => {
    const { controlPlane, createAccount, createKey, keys } = setup();
    await createAccount('enterprise', AGREED);
    const revoked = (await createKey('revoked')).key;
    await controlPlane.revokeKey('acct_1', revoked.keyId);
    await keys.put({
      keyHash: 'f'.repeat(64),
      keyId: 'key_orphan',
      accountId: 'acct_1',
      name: 'orphan',
      prefix: 'sk_live_Orph',
      last4: 'abcd',
      status: 'active',
      plan: 'enterprise',
      createdAt: iso(T0 + 1),
    });
    const usage = await controlPlane.usage('acct_1');
    expect(usage.limits).toEqual(AGREED);
    expect(usage.keys.map((k) => [k.keyId, k.status])).toEqual([
      [revoked.keyId, 'revoked'],
      ['key_orphan', 'active'],
    ]);
    expect(usage.keys[1]?.minute).toMatchObject({ used: 0, limit: AGREED.perMinute, remaining: AGREED.perMinute });
    expect(usage.keys[1]?.day).toMatchObject({ used: 0, limit: AGREED.perDay, remaining: AGREED.perDay });
    expect(JSON.stringify(usage)).not.toContain('f'.repeat(64));
  });
});
