import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateApiKey, hashApiKey } from '../../../lambda/keys/api-key-format.js';
import {
  type AuthorizeDeps,
  createAuthorizer,
  parsePooledUsageKeys,
  POOLED_USAGE_KEY_NAMES,
  type PooledUsageKeys,
} from '../../../lambda/keys/authorize.js';
import type { ApiKeyRecord } from '../../../lambda/keys/key-store.js';
import { ManualClock } from '../../support/clock.js';
import { loadConfig, type PlanId } from '../../../lib/config/index.js';
import { FakeKeyStore } from '../../support/key-fakes.js';

const config = loadConfig();
const T0 = Date.UTC(2026, 10, 21, 10, 15, 0);
const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123def4/v1/POST/messages';
const WILDCARD = 'arn:aws:execute-api:eu-west-1:123456789012:abc123def4/v1/*';

/** The pooled keys' values, as the stack passes them in the authorizer's environment. */
const POOLED: PooledUsageKeys = {
  free: 'pooled-free-0123456789abcdef',
  pro: 'pooled-pro-0123456789abcdef',
  business: 'pooled-business-0123456789abcdef',
  enterprise: 'pooled-enterprise-0123456789abcdef',
  anonymous: 'pooled-anonymous-0123456789abcdef',
};

afterEach(() => {
  vi.restoreAllMocks();
});

function setup(keyCacheSeconds = 30) {
  const keys = new FakeKeyStore();
  const clock = new ManualClock(T0);
  const deps: AuthorizeDeps = {
    keys,
    pooledUsageKeys: POOLED,
    limits: { plans: config.plans, anonymous: config.anonymous },
    clock,
    keyCacheSeconds,
  };
  const authorize = createAuthorizer(deps);
  async function issue(plan: PlanId, overrides: Partial<ApiKeyRecord> = {}) {
    const secret = generateApiKey();
    await keys.put({
      keyHash: hashApiKey(secret),
      keyId: `key_${plan}`,
      accountId: `acct_${plan}`,
      name: 'default',
      prefix: secret.slice(0, 12),
      last4: secret.slice(-4),
      status: 'active',
      plan,
      createdAt: '2026-11-01T00:00:00.000Z',
      ...overrides,
    });
    return secret;
  }
  return { keys, clock, authorize, issue };
}

function event(headers: Record<string, string> | null, methodArn = METHOD_ARN): APIGatewayRequestAuthorizerEvent {
  return { type: 'REQUEST', methodArn, headers } as unknown as APIGatewayRequestAuthorizerEvent;
}
const bearer = (token: string) => event({ Authorization: `Bearer ${token}` });

/** The result without its policy (the policy has tests of its own below). */
const withoutPolicy = ({ policyDocument: _policy, ...rest }: APIGatewayAuthorizerResult) => rest;

const anonymousResult = (reason: string) => ({
  principalId: 'anonymous',
  context: { principal: 'anonymous', reason },
  usageIdentifierKey: POOLED.anonymous,
});

describe('createAuthorizer: callers without a valid key are let through as anonymous', () => {
  it.each([
    ['no headers at all', event(null), 'missing'],
    ['no Authorization header', event({ 'Content-Type': 'application/json' }), 'missing'],
    ['an empty Authorization header', event({ Authorization: '' }), 'missing'],
    ['a blank Authorization header', event({ Authorization: '   ' }), 'missing'],
    ['Basic credentials', event({ Authorization: 'Basic dXNlcjpwYXNz' }), 'malformed'],
    ['a key without a scheme', event({ Authorization: generateApiKey() }), 'malformed'],
    ['the scheme without a key', event({ Authorization: 'Bearer' }), 'malformed'],
    ['two tokens', event({ Authorization: `Bearer ${generateApiKey()} extra` }), 'malformed'],
    ['a token that is not one of our keys', bearer('not-a-key'), 'invalid'],
  ])('%s → %s', async (_what, e, reason) => {
    const { authorize, keys } = setup();
    expect(withoutPolicy(await authorize(e))).toEqual(anonymousResult(reason));
    expect(keys.lookups).toEqual([]);
  });

  it('a key with a bad checksum is invalid without a lookup', async () => {
    const { authorize, keys } = setup();
    const key = generateApiKey();
    const typo = `${key.slice(0, 20)}${key[20] === 'a' ? 'b' : 'a'}${key.slice(21)}`;
    expect(withoutPolicy(await authorize(bearer(typo)))).toEqual(anonymousResult('invalid'));
    expect(keys.lookups).toEqual([]);
  });

  it('an unknown well-formed key is invalid after a lookup by its hash', async () => {
    const { authorize, keys } = setup();
    const key = generateApiKey();
    expect(withoutPolicy(await authorize(bearer(key)))).toEqual(anonymousResult('invalid'));
    expect(keys.lookups).toEqual([hashApiKey(key)]);
  });

  it('a revoked key is invalid', async () => {
    const { authorize, issue } = setup();
    const secret = await issue('pro', { status: 'revoked', revokedAt: '2026-11-20T00:00:00.000Z' });
    expect(withoutPolicy(await authorize(bearer(secret)))).toEqual(anonymousResult('invalid'));
  });

  it('a revoked key is metered as anonymous, not on its own internal key', async () => {
    const { authorize, issue } = setup();
    const secret = await issue('pro', { status: 'revoked', gatewayKeyId: 'gk_revoked', gatewayKeyValue: 'value-of-gk_revoked' });
    expect(withoutPolicy(await authorize(bearer(secret)))).toEqual(anonymousResult('invalid'));
  });
});

describe('createAuthorizer: valid keys', () => {
  it('passes the key, account and plan limits on as context and binds the key\'s own internal key by its stored value', async () => {
    const { authorize, issue } = setup();
    const secret = await issue('pro', { gatewayKeyId: 'gk_123', gatewayKeyValue: 'value-of-gk_123-0123456789' });
    expect(withoutPolicy(await authorize(bearer(secret)))).toEqual({
      principalId: 'key_pro',
      context: {
        principal: 'key',
        keyId: 'key_pro',
        accountId: 'acct_pro',
        plan: 'pro',
        perMinute: 300,
        perDay: 10_000,
        banThreshold: 30,
        banDurationSeconds: 900,
      },
      usageIdentifierKey: 'value-of-gk_123-0123456789',
    });
  });

  it('binds a pooled key (no internal key of its own) to its plan\'s pooled key', async () => {
    const { authorize, issue } = setup();
    const secret = await issue('free');
    expect((await authorize(bearer(secret))).usageIdentifierKey).toBe(POOLED.free);
  });

  it('never puts the internal key id or value in the context', async () => {
    const { authorize, issue } = setup();
    const secret = await issue('business', { gatewayKeyId: 'gk_secretive', gatewayKeyValue: 'value-secretive-0123456789' });
    const context = JSON.stringify((await authorize(bearer(secret))).context);
    expect(context).not.toContain('gk_secretive');
    expect(context).not.toContain('value-secretive');
  });

  it.each([
    ['free', 60, 1_000],
    ['business', 1_000, 100_000],
    ['enterprise', 5_000, 1_000_000],
  ] as const)('uses the %s plan limits when the key has none of its own', async (plan, perMinute, perDay) => {
    const { authorize, issue } = setup();
    const result = await authorize(bearer(await issue(plan)));
    expect(result.context).toMatchObject({ plan, perMinute, perDay });
    expect(result.usageIdentifierKey).toBe(POOLED[plan]);
  });

  it('uses an Enterprise account\'s own limits over the plan\'s', async () => {
    const { authorize, issue } = setup();
    const secret = await issue('enterprise', { limits: { perMinute: 20_000, perDay: 5_000_000 } });
    expect((await authorize(bearer(secret))).context).toMatchObject({
      plan: 'enterprise',
      perMinute: 20_000,
      perDay: 5_000_000,
    });
  });

  it('accepts the scheme in any case, the header name in any case, and trailing spaces', async () => {
    const { authorize, issue } = setup();
    const secret = await issue('free');
    for (const e of [event({ authorization: `bearer ${secret}` }), event({ AUTHORIZATION: `BEARER  ${secret}  ` })]) {
      expect((await authorize(e)).principalId).toBe('key_free');
    }
  });

  it('never returns the secret (nor its hash) in the result', async () => {
    const { authorize, issue } = setup();
    for (const status of ['active', 'revoked'] as const) {
      const secret = await issue('pro', { status, keyId: `key_${status}` });
      const text = JSON.stringify(await authorize(bearer(secret)));
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(8, 38));
      expect(text).not.toContain(hashApiKey(secret));
    }
  });
});

describe('createAuthorizer: no management-plane call on the request path', () => {
  it('reads the key record once and nothing else, for every kind of caller', async () => {
    const { authorize, issue, keys } = setup(0);
    const own = await issue('pro', { keyId: 'key_own', gatewayKeyId: 'gk_1', gatewayKeyValue: 'value-of-gk_1-0123456789' });
    const pooled = await issue('free', { keyId: 'key_pooled' });
    keys.calls.length = 0;
    const results = [];
    for (const e of [event(null), bearer(generateApiKey()), bearer(own), bearer(pooled)]) {
      results.push((await authorize(e)).usageIdentifierKey);
    }
    expect(results).toEqual([POOLED.anonymous, POOLED.anonymous, 'value-of-gk_1-0123456789', POOLED.free]);
    // The deps hold the key store and plain values only: the one port the authorizer can call.
    expect(keys.calls.map((c) => c.method)).toEqual(['findByHash', 'findByHash', 'findByHash']);
  });
});

describe('parsePooledUsageKeys (the authorizer\'s environment)', () => {
  it('takes one value per plan and for anonymous callers, and nothing else', () => {
    expect(POOLED_USAGE_KEY_NAMES).toEqual(['free', 'pro', 'business', 'enterprise', 'anonymous']);
    expect(parsePooledUsageKeys({ ...POOLED, extra: 'x' })).toEqual(POOLED);
  });

  it('names every missing or empty value (a cold start fails rather than meter on nothing)', () => {
    const { pro: _pro, anonymous: _anonymous, ...partial } = POOLED;
    expect(() => parsePooledUsageKeys({ ...partial, free: '' })).toThrow('pooled usage keys: no value for free, pro, anonymous');
    expect(() => parsePooledUsageKeys(null)).toThrow('no value for free, pro, business, enterprise, anonymous');
    expect(() => parsePooledUsageKeys({ ...POOLED, business: 42 })).toThrow('no value for business');
  });
});

describe('createAuthorizer: policy', () => {
  const policy = (resource: string) => ({
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: resource }],
  });

  // One policy must fit every route of the stage (arn…/stage/*), so that a policy cached for one
  // request (authorizer result caching) also allows the key's next request on another method or path.
  it.each([
    ['POST /messages', METHOD_ARN, WILDCARD],
    [
      'GET /messages/{id} of another API and stage',
      'arn:aws:execute-api:us-east-1:210987654321:zyx987/prod/GET/messages/msg_01JD8X3Q5Z8M2N4P6R7S9T0V1W',
      'arn:aws:execute-api:us-east-1:210987654321:zyx987/prod/*',
    ],
  ])('allows the whole stage for a valid key (%s)', async (_route, methodArn, resource) => {
    const { authorize, issue } = setup();
    const secret = await issue('free');
    const result = await authorize(event({ Authorization: `Bearer ${secret}` }, methodArn));
    expect(result.policyDocument).toEqual(policy(resource));
  });

  it('allows the whole stage for an anonymous caller too (the handler answers the 401)', async () => {
    const { authorize } = setup();
    expect((await authorize(event(null))).policyDocument).toEqual(policy(WILDCARD));
  });
});

describe('createAuthorizer: key cache', () => {
  it('does not look a key up again within keyCacheSeconds, and does from then on', async () => {
    const { authorize, issue, keys, clock } = setup(30);
    const secret = await issue('pro');
    await authorize(bearer(secret));
    clock.advance(29_999);
    await authorize(bearer(secret));
    expect(keys.lookups).toHaveLength(1);
    clock.advance(1);
    await authorize(bearer(secret));
    expect(keys.lookups).toHaveLength(2);
  });

  it('sees a revocation once the cached entry expires', async () => {
    const { authorize, issue, keys, clock } = setup(30);
    const secret = await issue('pro');
    expect((await authorize(bearer(secret))).principalId).toBe('key_pro');
    await keys.update(hashApiKey(secret), { status: 'revoked', revokedAt: '2026-11-21T10:15:00.000Z' });
    clock.advance(10_000);
    expect((await authorize(bearer(secret))).principalId).toBe('key_pro');
    clock.advance(20_000);
    expect(withoutPolicy(await authorize(bearer(secret)))).toEqual(anonymousResult('invalid'));
  });

  it('caches per key', async () => {
    const { authorize, issue, keys } = setup(30);
    const a = await issue('pro', { keyId: 'key_a' });
    const b = await issue('pro', { keyId: 'key_b' });
    await authorize(bearer(a));
    await authorize(bearer(b));
    await authorize(bearer(a));
    expect(keys.lookups).toEqual([hashApiKey(a), hashApiKey(b)]);
  });

  it('looks up every time with keyCacheSeconds 0', async () => {
    const { authorize, issue, keys } = setup(0);
    const secret = await issue('pro');
    await authorize(bearer(secret));
    await authorize(bearer(secret));
    expect(keys.lookups).toHaveLength(2);
  });
});
