import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { API_KEY_PREFIX } from '../../../contracts/api-keys.js';
import { isWellFormedApiKey } from '../../../lambda/keys/api-key-format.js';
import { RELEASE_MARGIN_SECONDS } from '../../../lambda/keys/account-service.js';
import { AGREED, AGREED_BIG, config, expectInvalid, iso, refusal, setup, T0 } from './account-service-fixtures.js';
import { valueOfGatewayKey } from '../../support/key-fakes.js';

const KEY_ID = /^key_[0-9a-f]{20}$/;
const NAME_MESSAGE = 'must be a string of 1 to 100 characters';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const DAY_END = Date.UTC(2026, 10, 22);
const MINUTE_END = Date.UTC(2026, 10, 21, 10, 16);

describe('AccountService.createKey', () => {
  it('returns a well-formed secret once, with a view of the key that holds neither the secret nor its hash', async () => {
    const { createAccount, createKey } = setup();
    await createAccount('free');
    const { secret, key } = await createKey('ci');
    expect(isWellFormedApiKey(secret)).toBe(true);
    expect(secret.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(key.keyId).toMatch(KEY_ID);
    expect(key).toEqual({ keyId: key.keyId, name: 'ci', prefix: secret.slice(0, 12), last4: secret.slice(-4), status: 'active', createdAt: iso(T0) });
    const text = JSON.stringify(key);
    expect(text).not.toContain(secret.slice(12, -4));
    expect(text).not.toContain(sha256(secret));
  });

  it('stores the SHA-256 of the secret, its prefix and last 4, with a copy of the account\'s plan and internal key', async () => {
    const { createAccount, createKey, keys, gateway } = setup();
    await createAccount('pro');
    gateway.calls.length = 0;
    const { secret, key } = await createKey('ci');
    const second = await createKey('deploy');
    expect([...keys.records.values()][0]).toEqual({
      keyHash: sha256(secret),
      keyId: key.keyId,
      accountId: 'acct_1',
      name: 'ci',
      prefix: secret.slice(0, 12),
      last4: secret.slice(-4),
      status: 'active',
      plan: 'pro',
      // The account's internal key: what the authorizer returns, read with the key record in one GetItem.
      gatewayKeyId: 'gk-1',
      gatewayKeyValue: valueOfGatewayKey('gk-1'),
      createdAt: iso(T0),
    });
    expect(keys.byKeyId(second.key.keyId)).toMatchObject({ gatewayKeyId: 'gk-1', gatewayKeyValue: valueOfGatewayKey('gk-1') });
    // No API key per customer key: the 10,000 API keys per region count accounts.
    expect(gateway.calls).toEqual([]);
    expect([...gateway.members.keys()]).toEqual(['gk-1']);
  });

  it('puts the secret nowhere: not in any store, limiter item, gateway call or call argument', async () => {
    const { createAccount, createKey, everything, gateway } = setup();
    await createAccount('free');
    await createAccount('enterprise', AGREED, 'acct_2');
    const secrets: string[] = [];
    for (const accountId of ['acct_1', 'acct_2', 'acct_1']) secrets.push((await createKey('k', accountId)).secret);
    const text = everything();
    for (const secret of secrets) {
      expect(text).toContain(sha256(secret));
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(API_KEY_PREFIX.length));
      expect(text).not.toContain(secret.slice(12, -4));
      expect(JSON.stringify(gateway.state())).not.toContain(sha256(secret));
    }
  });

  it('lets the key draw on its account\'s budget at once, with the account\'s limits', async () => {
    const { createAccount, createKey, send } = setup();
    await createAccount('enterprise', AGREED);
    const { key } = await createKey();
    const first = await send(key.keyId);
    expect(first.outcome).toBe('allowed');
    expect(first.state.minute).toMatchObject({ limit: AGREED.perMinute, used: 1 });
  });

  it('gives an account from before per-account limits its internal key and its shards with its first new key', async () => {
    const { accounts, createKey, gateway, limiter, keys } = setup();
    await accounts.create({ accountId: 'acct_1', name: 'Old', plan: 'business', createdAt: iso(T0) });
    const { key } = await createKey();
    expect(gateway.calls).toEqual([{ method: 'createKey', accountId: 'acct_1', usagePlanId: 'up-business', poolable: false }]);
    expect(accounts.accounts.get('acct_1')).toMatchObject({ gatewayKeyId: 'gk-1' });
    expect(keys.byKeyId(key.keyId)).toMatchObject({ gatewayKeyId: 'gk-1' });
    expect(limiter.raw('acct#acct_1')).toMatchObject({ minuteLimit: 1_000, dayLimit: 100_000, shards: 1 });
  });

  it('stores a key of a pooled account without an internal key, and it works', async () => {
    const { createAccount, createKey, gateway, record, send } = setup();
    gateway.quotaReached = true;
    await createAccount('free');
    const { key } = await createKey();
    expect(record(key.keyId)).not.toHaveProperty('gatewayKeyId');
    expect((await send(key.keyId)).outcome).toBe('allowed');
  });

  it('refuses a bad name (400) or an unknown account (404) without creating anything', async () => {
    const { accountService, createAccount, gateway, keys } = setup();
    await createAccount('free');
    gateway.calls.length = 0;
    for (const name of [undefined, '', '   ', 'x'.repeat(101), 7]) {
      expectInvalid(await refusal(accountService.createKey('acct_1', name)), 'name', NAME_MESSAGE);
    }
    expect((await refusal(accountService.createKey('acct_x', 'default'))).code).toBe('account_not_found');
    expect(gateway.calls).toEqual([]);
    expect(keys.records.size).toBe(0);
  });
});

describe('AccountService.listKeys', () => {
  it('lists the account\'s keys by creation time, with their last use from the limiter, revoked ones too', async () => {
    const { accountService, createAccount, createKey, clock, send } = setup();
    await createAccount('free');
    const a = (await createKey('a')).key;
    clock.advance(1_000);
    const b = (await createKey('b')).key;
    clock.advance(1_000);
    await send(a.keyId);
    await accountService.revokeKey('acct_1', b.keyId);
    expect(await accountService.listKeys('acct_1')).toEqual([
      { ...a, lastUsedAt: iso(T0 + 2_000) },
      { ...b, status: 'revoked', revokedAt: iso(T0 + 2_000) },
    ]);
  });

  it('shows an active key\'s ban with when it ends (no call per key), and none once it is over or the key is revoked', async () => {
    const { accountService, createAccount, createKey, accountLimits, clock } = setup();
    await createAccount('free');
    const a = (await createKey('a')).key;
    clock.advance(1);
    const b = (await createKey('b')).key;
    await accountLimits.ban('acct_1', a.keyId, T0 + 900_000, clock.now());
    await accountLimits.ban('acct_1', b.keyId, T0 + 900_000, clock.now());
    await accountService.revokeKey('acct_1', b.keyId);
    const [bannedA, revokedB] = await accountService.listKeys('acct_1');
    expect(bannedA).toEqual({ ...a, bannedUntil: iso(T0 + 900_000) });
    expect(revokedB).toMatchObject({ keyId: b.keyId, status: 'revoked' });
    expect(revokedB).not.toHaveProperty('bannedUntil');
    clock.set(T0 + 900_000);
    expect((await accountService.listKeys('acct_1'))[0]).toEqual(a);
  });
});

describe('AccountService.revokeKey', () => {
  const grace = (config.auth.keyCacheSeconds + RELEASE_MARGIN_SECONDS) * 1000;

  it('marks the key on every shard (refused at once) and the record revoked, keeping its last use; no gateway call', async () => {
    const { accountService, createAccount, createKey, gateway, limiter, record, send, clock } = setup();
    await createAccount('enterprise', AGREED_BIG);
    const a = (await createKey('a')).key.keyId;
    const b = (await createKey('b')).key.keyId;
    await send(a);
    clock.advance(5_000);
    gateway.calls.length = 0;
    const view = await accountService.revokeKey('acct_1', a);
    expect(view).toMatchObject({ keyId: a, status: 'revoked', revokedAt: iso(T0 + 5_000), lastUsedAt: iso(T0) });
    expect(record(a)).toMatchObject({ status: 'revoked', revokedAt: iso(T0 + 5_000), lastUsedAt: iso(T0), gatewayKeyId: 'gk-1' });
    expect([limiter.raw('acct#acct_1')?.[`${a}/x`], limiter.raw('acct#acct_1#1')?.[`${a}/x`]]).toEqual([T0 + 5_000 + grace, T0 + 5_000 + grace]);
    // The account's internal key stays: its other keys use it.
    expect(gateway.calls).toEqual([]);
    expect((await send(a)).outcome).toBe('revoked');
    expect((await send(b)).outcome).toBe('allowed');
  });

  it('is idempotent: revoking again answers the first revocation and changes nothing', async () => {
    const { accountService, createAccount, createKey, data, clock } = setup();
    await createAccount('free');
    const a = (await createKey('a')).key.keyId;
    const first = await accountService.revokeKey('acct_1', a);
    const before = data();
    clock.advance(60_000);
    expect(await accountService.revokeKey('acct_1', a)).toEqual(first);
    expect(data()).toBe(before);
  });

  it('answers 404 for a key of another account and leaves that key alone', async () => {
    const { accountService, createAccount, createKey, send } = setup();
    await createAccount('free');
    await createAccount('free', undefined, 'acct_2');
    const other = (await createKey('x', 'acct_2')).key.keyId;
    expect((await refusal(accountService.revokeKey('acct_1', other))).code).toBe('key_not_found');
    expect((await send(other, 'acct_2')).outcome).toBe('allowed');
  });
});

describe('AccountService.liftBan', () => {
  it('clears a running ban of the key on every shard and says it was banned; the key works again', async () => {
    const { accountService, createAccount, createKey, accountLimits, send, clock } = setup();
    await createAccount('enterprise', AGREED_BIG);
    const a = (await createKey('a')).key.keyId;
    await accountLimits.ban('acct_1', a, T0 + 900_000, clock.now());
    expect((await send(a)).outcome).toBe('banned');
    expect(await accountService.liftBan('acct_1', a)).toEqual({ keyId: a, wasBanned: true });
    expect((await send(a)).outcome).toBe('allowed');
    expect(await accountService.liftBan('acct_1', a)).toEqual({ keyId: a, wasBanned: false });
  });
});

describe('AccountService.usage', () => {
  it('shows the account\'s budget in the current windows, with each key\'s share and ban, revoked keys included', async () => {
    const { accountService, createAccount, createKey, accountLimits, send, clock } = setup();
    await createAccount('free');
    // Created a millisecond apart: the rows come oldest first.
    const a = (await createKey('a')).key;
    clock.advance(1);
    const b = (await createKey('b')).key;
    clock.advance(1);
    const c = (await createKey('c')).key;
    clock.set(T0);
    for (let i = 0; i < 3; i++) await send(a.keyId);
    await send(b.keyId);
    await accountService.revokeKey('acct_1', b.keyId);
    await accountLimits.ban('acct_1', c.keyId, T0 + 900_000, clock.now());
    expect(await accountService.usage('acct_1')).toEqual({
      accountId: 'acct_1',
      plan: 'free',
      limits: { perMinute: 60, perDay: 1_000 },
      minute: { used: 4, limit: 60, remaining: 56, resetsAt: iso(MINUTE_END) },
      day: { used: 4, limit: 1_000, remaining: 996, resetsAt: iso(DAY_END) },
      limiterShards: 1,
      keys: [
        { ...a, lastUsedAt: iso(T0), used: { minute: 3, day: 3 } },
        { ...b, status: 'revoked', revokedAt: iso(T0), lastUsedAt: iso(T0), used: { minute: 1, day: 1 } },
        { ...c, used: { minute: 0, day: 0 }, bannedUntil: iso(T0 + 900_000) },
      ],
    });
  });

  it('counts the current windows only, sums an account split across shards, and never shows a negative remainder', async () => {
    const { accountService, createAccount, createKey, send, clock, limiter } = setup();
    await createAccount('enterprise', AGREED_BIG);
    const a = (await createKey('a')).key.keyId;
    for (let i = 0; i < 4; i++) await send(a);
    await limiter.adjustCounters('acct#acct_1#1', { [`m${Math.floor(T0 / 60_000)}`]: 70_000 });
    let usage = await accountService.usage('acct_1');
    expect(usage).toMatchObject({ limiterShards: 2, minute: { used: 70_004, remaining: 0 }, day: { used: 4 } });
    clock.advance(60_000);
    usage = await accountService.usage('acct_1');
    expect(usage).toMatchObject({ minute: { used: 0, remaining: 60_000 }, day: { used: 4 } });
    expect(usage.keys[0]?.used).toEqual({ minute: 0, day: 4 });
  });
});
