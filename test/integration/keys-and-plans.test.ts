import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../lambda/keys/api-key-format.js';
import { DynamoDbKeyStore } from '../../lambda/keys/dynamodb-key-store.js';
import type { ApiKeyRecord } from '../../lambda/keys/key-store.js';
import { createDocumentClient } from '../../lambda/shared/dynamodb.js';
import { LOCAL_AWS } from '../../local/emulators.js';
import { many, minuteStart, rateHeaders, send, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Issue 3: accounts, plans and keys through the control API, seen on the Messages API.
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.stop());

async function control(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${platform.controlUrl}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function account(plan: string, limits?: { perMinute: number; perDay: number }) {
  const created = await control('POST', '/accounts', { name: `Test ${plan}`, plan, ...(limits ? { limits } : {}) });
  expect(created.status).toBe(201);
  return created.body as { accountId: string; plan: string; limits: { perMinute: number; perDay: number } };
}

async function key(accountId: string, name = 'test key'): Promise<{ secret: string; keyId: string }> {
  const created = await control('POST', `/accounts/${accountId}/keys`, { name });
  expect(created.status).toBe(201);
  return { secret: created.body.secret as string, keyId: (created.body.key as { keyId: string }).keyId };
}

const store = () => {
  const documents = createDocumentClient({ ...LOCAL_AWS, endpoint: platform.endpoints.dynamodb });
  return new DynamoDbKeyStore(documents, platform.tables.apiKeys);
};
const recordOf = async (secret: string) => (await store().findByHash(hashApiKey(secret))) as ApiKeyRecord;

function nextMinute(): void {
  platform.clock.set(Math.max(minuteStart(), (Math.floor(platform.clock.now() / 60_000) + 1) * 60_000 + 5_000));
}

describe('keys', () => {
  it('a created key works on POST /messages with its plan limits, and is shown once', async () => {
    const pro = await account('pro');
    const { secret, keyId } = await key(pro.accountId, 'production');
    const answer = await send(platform, secret, 'hello');
    expect(answer.status).toBe(202);
    expect(rateHeaders(answer.headers).limit).toBe(platform.config.plans.pro.limits.perMinute);

    const listed = await control('GET', `/accounts/${pro.accountId}/keys`);
    const keys = listed.body.keys as Array<Record<string, unknown>>;
    expect(keys).toEqual([
      {
        keyId,
        name: 'production',
        prefix: secret.slice(0, 12),
        last4: secret.slice(-4),
        status: 'active',
        createdAt: expect.any(String),
        lastUsedAt: new Date(platform.clock.now()).toISOString(),
      },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(JSON.stringify(listed.body)).not.toContain(hashApiKey(secret));
  });

  it('a revoked key gets 401 on the very next request, from the limiter with rate-limit headers', async () => {
    const free = await account('free');
    const { secret, keyId } = await key(free.accountId);
    expect((await send(platform, secret, 'before')).status).toBe(202); // the authorizer now caches it
    const revoked = await control('DELETE', `/accounts/${free.accountId}/keys/${keyId}`);
    expect(revoked.body).toMatchObject({ keyId, status: 'revoked', revokedAt: expect.any(String) });
    // The authorizer's cached record still passes the backstop (the account's internal key stays:
    // its other keys use it), and the limiter refuses the key at once.
    const answer = await send(platform, secret, 'after');
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('invalid_api_key');
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    expect(rateHeaders(answer.headers).limit).toBe(platform.config.anonymous.perMinute);
    const { gatewayKeyId } = await recordOf(secret);
    expect(await recordOf(secret)).toMatchObject({ status: 'revoked', gatewayKeyId: expect.any(String) });
    // Past the cache, the authorizer refuses it itself; a new key of the account shares the internal key.
    platform.clock.advance((platform.config.auth.keyCacheSeconds + 5) * 1000);
    const another = await key(free.accountId, 'another');
    expect(await recordOf(another.secret)).toMatchObject({ gatewayKeyId });
    expect((await send(platform, secret, 'later')).status).toBe(401);
    expect((await send(platform, another.secret, 'sibling')).status).toBe(202);
  });

  it('refuses unknown accounts and keys, and bad input, with problem documents', async () => {
    expect((await control('GET', '/accounts/acct_nope')).status).toBe(404);
    expect((await control('DELETE', '/accounts/acct_demo_free/keys/key_nope')).body.code).toBe('key_not_found');
    const bad = await control('POST', '/accounts', { name: '', plan: 'gold' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_request');
    const limitsOnFree = await control('POST', '/accounts', { name: 'x', plan: 'free', limits: { perMinute: 5, perDay: 10 } });
    expect(limitsOnFree.status).toBe(400);
  });
});

describe('plans', () => {
  it('a plan change alters X-RateLimit-Limit on the next request', async () => {
    nextMinute();
    const acct = await account('free');
    const { secret } = await key(acct.accountId);
    expect(rateHeaders((await send(platform, secret, 'x')).headers).limit).toBe(60);
    const changed = await control('PUT', `/accounts/${acct.accountId}/plan`, { plan: 'pro' });
    expect(changed.body).toMatchObject({ plan: 'pro', limits: platform.config.plans.pro.limits });
    const after = await send(platform, secret, 'x');
    expect(rateHeaders(after.headers)).toMatchObject({ limit: 300, remaining: 298 });
  });

  it('enforces an Enterprise account’s custom limits, and a change of them at once', async () => {
    nextMinute();
    const acct = await account('enterprise', { perMinute: 5, perDay: 50 });
    expect(acct.limits).toEqual({ perMinute: 5, perDay: 50 });
    const { secret } = await key(acct.accountId);
    const answers = await many(8, 8, () => send(platform, secret, 'x'));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(3);

    await control('PUT', `/accounts/${acct.accountId}/plan`, { plan: 'enterprise', limits: { perMinute: 7, perDay: 50 } });
    // A container that has just seen the budget spent answers from that memory for up to a second.
    platform.clock.advance(1_000);
    const more = await many(3, 3, () => send(platform, secret, 'x'));
    expect(more.filter((a) => a.status === 202)).toHaveLength(2);
    expect(rateHeaders(more[0]?.headers ?? new Headers()).limit).toBe(7);
  });

  it('a downgrade from Enterprise returns the keys to the plan limits', async () => {
    nextMinute();
    const acct = await account('enterprise', { perMinute: 500, perDay: 5000 });
    const { secret } = await key(acct.accountId);
    await control('PUT', `/accounts/${acct.accountId}/plan`, { plan: 'business' });
    expect(rateHeaders((await send(platform, secret, 'x')).headers).limit).toBe(1_000);
  });
});

describe('bans and usage', () => {
  it('a lifted ban lets the key through again, and usage shows the counts', async () => {
    nextMinute();
    const acct = await account('free');
    const { secret, keyId } = await key(acct.accountId);
    await many(60, 10, () => send(platform, secret, 'x'));
    for (let i = 0; i <= platform.config.plans.free.ban.threshold; i++) await send(platform, secret, 'x');
    expect((await send(platform, secret, 'x')).body.code).toBe('key_banned');

    const usage = await control('GET', `/accounts/${acct.accountId}/usage`);
    expect(usage.body).toMatchObject({
      plan: 'free',
      minute: { used: 60, limit: 60, remaining: 0 },
      day: { used: 60, limit: 1_000 },
      keys: [{ keyId, used: { minute: 60, day: 60 }, bannedUntil: expect.any(String) }],
    });

    const lifted = await control('DELETE', `/accounts/${acct.accountId}/keys/${keyId}/ban`);
    expect(lifted.body).toEqual({ keyId, wasBanned: true });
    // A container that refused the banned key answers from that memory for up to 5 s.
    platform.clock.advance(5_000);
    // Still over this minute's budget, but no longer banned: the next minute lets it through.
    expect((await send(platform, secret, 'x')).body.code).toBe('rate_limited');
    platform.clock.advance(60_000);
    expect((await send(platform, secret, 'after the ban')).status).toBe(202);
  });
});

describe('usage identifiers: the authorizer reads them from the key record, never from the gateway', () => {
  const expireAuthorizerCache = () => platform.clock.advance(platform.config.auth.keyCacheSeconds * 1000);

  it('a new key\'s record holds its internal key\'s id and value, and the backstop meters the key on that value', async () => {
    nextMinute();
    const acct = await account('pro');
    const { secret } = await key(acct.accountId);
    const record = await recordOf(secret);
    expect(record.gatewayKeyId).toEqual(expect.any(String));
    expect(record.gatewayKeyValue).toMatch(/^[0-9a-f]{40}$/);
    expect((await send(platform, secret, 'x')).status).toBe(202);
    // Another value in the record is what reaches the backstop: the front refuses it as API Gateway would.
    await store().update(record.keyHash, { gatewayKeyValue: 'not-an-internal-key-value-0000' });
    expireAuthorizerCache();
    const refused = await send(platform, secret, 'x', { checkSpec: false });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('The API key is invalid or has been revoked.');
    await store().update(record.keyHash, { gatewayKeyValue: record.gatewayKeyValue });
    expireAuthorizerCache();
    expect((await send(platform, secret, 'x')).status).toBe(202);
  });
});
