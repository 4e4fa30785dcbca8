import { describe, expect, it } from 'vitest';
import { RELEASE_MARGIN_SECONDS } from '../../../lambda/keys/account-service.js';
import type { ApiKeyRecord } from '../../../lambda/keys/key-store.js';
import { config, iso, setup, T0 } from './account-service-fixtures.js';
import { valueOfGatewayKey } from '../../support/key-fakes.js';

const W = Math.floor(T0 / 60_000);
const D = Math.floor(T0 / 86_400_000);
const GRACE = (config.auth.keyCacheSeconds + RELEASE_MARGIN_SECONDS) * 1000;

/**
 * An account as the per-key design left it: no internal key of its own, each key with its own
 * internal key (B's record from before values were stored), per-key limiter items with counts of
 * the current minute and day, a ban on B, a key revoked long ago and one revoked a moment ago.
 */
async function earlierDesign() {
  const context = setup();
  const { accounts, keys, gateway, limiter } = context;
  await accounts.create({ accountId: 'acct_old', name: 'Old', plan: 'free', createdAt: iso(T0 - 86_400_000) });
  const key = (keyId: string, created: number, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
    keyHash: `hash-${keyId}`,
    keyId,
    accountId: 'acct_old',
    name: keyId,
    prefix: 'sk_live_abcd',
    last4: 'wxyz',
    status: 'active',
    plan: 'free',
    createdAt: iso(created),
    ...extra,
  });
  gateway.seedKey('gk-a', 'up-free', 'key_a');
  gateway.seedKey('gk-b', 'up-free', 'key_b');
  gateway.seedKey('gk-r', 'up-free', 'key_r');
  gateway.seedKey('gk-r2', 'up-free', 'key_r2');
  await keys.put(key('key_a', T0 - 50_000, { gatewayKeyId: 'gk-a', gatewayKeyValue: valueOfGatewayKey('gk-a') }));
  await keys.put(key('key_b', T0 - 40_000, { gatewayKeyId: 'gk-b' }));
  await keys.put(key('key_r', T0 - 30_000, { status: 'revoked', revokedAt: iso(T0 - 600_000), gatewayKeyId: 'gk-r' }));
  await keys.put(key('key_r2', T0 - 20_000, { status: 'revoked', revokedAt: iso(T0 - 5_000), gatewayKeyId: 'gk-r2' }));
  const item = { status: 'active', minuteLimit: 60, dayLimit: 1_000 };
  limiter.seed({ id: 'key#key_a', ...item, [`m${W}`]: 40, [`d${D}`]: 300, lastUsedAt: T0 - 1_000 });
  limiter.seed({ id: 'key#key_b', ...item, [`m${W - 3}`]: 9, [`d${D}`]: 200, banUntil: T0 + 600_000, strikeWindowStart: T0 - 10, strikeCount: 0 });
  limiter.seed({ id: 'key#key_r2', ...item, status: 'revoked', [`m${W}`]: 30, [`d${D}`]: 30, lastUsedAt: T0 - 6_000 });
  gateway.calls.length = 0;
  return context;
}

describe('AccountService.migrate: an account from before per-account limits', () => {
  it('moves counts, bans and revocations into the account\'s budget and adopts one internal key for every record', async () => {
    const { accountService, accounts, keys, limiter, gateway, send } = await earlierDesign();
    const report = await accountService.migrate('acct_old');
    expect(report).toMatchObject({
      accountId: 'acct_old',
      accounts: 1,
      internalKeys: { kept: 0, adopted: 1, created: 0, pooled: 0 },
      keysRebound: 3,
      limiterItemsMoved: 3,
      formerKeysDeleted: 1,
      formerKeysPending: [
        { accountId: 'acct_old', keyId: 'key_b', deleteAfter: iso(T0 + GRACE) },
        { accountId: 'acct_old', keyId: 'key_r2', deleteAfter: iso(T0 - 5_000 + GRACE) },
      ],
      changed: [],
    });
    // The oldest active key's internal key is the account's now (no new API key).
    expect(accounts.accounts.get('acct_old')).toMatchObject({ gatewayKeyId: 'gk-a', gatewayKeyValue: valueOfGatewayKey('gk-a') });
    for (const keyId of ['key_a', 'key_b', 'key_r', 'key_r2']) {
      expect(keys.byKeyId(keyId)).toMatchObject({ gatewayKeyId: 'gk-a', gatewayKeyValue: valueOfGatewayKey('gk-a') });
    }
    expect(keys.byKeyId('key_b')).toMatchObject({ formerGatewayKeyId: 'gk-b', formerGatewayKeyRetiredAt: iso(T0) });
    // Revoked long ago: its own key was out of use already, and is deleted at once.
    expect(gateway.calls.filter((c) => c.method === 'deleteKey')).toEqual([{ method: 'deleteKey', gatewayKeyId: 'gk-r' }]);
    expect(keys.byKeyId('key_r')).not.toHaveProperty('formerGatewayKeyId');
    expect(gateway.calls.some((c) => c.method === 'createKey')).toBe(false);

    // Nothing lost: the account's minute already holds 70 of its 60, the day 530.
    expect(limiter.raw('acct#acct_old')).toMatchObject({
      minuteLimit: 60,
      dayLimit: 1_000,
      [`m${W}`]: 70,
      [`d${D}`]: 530,
      [`key_a/m${W}`]: 40,
      [`key_b/d${D}`]: 200,
      'key_a/u': T0 - 1_000,
      'key_b/b': T0 + 600_000,
      'key_r2/x': T0 - 5_000 + GRACE,
    });
    // The key's own item holds its ban too (its strikes are cleared by the ban, as by any ban).
    expect(limiter.raw('key#key_b')).toMatchObject({ migratedAt: T0, 'key_b/b': T0 + 600_000, strikeCount: 0 });
    expect((await send('key_a', 'acct_old')).outcome).toBe('rate_limited');
    expect((await send('key_b', 'acct_old')).outcome).toBe('banned');
    expect((await send('key_r2', 'acct_old')).outcome).toBe('revoked');
  });

  it('is idempotent, and a run after the authorizer cache TTL deletes the keys\' own internal keys still pending', async () => {
    const { accountService, limiter, gateway, keys, clock } = await earlierDesign();
    await accountService.migrate('acct_old');
    const counts = limiter.raw('acct#acct_old');
    const again = await accountService.migrate('acct_old');
    expect(again).toMatchObject({ internalKeys: { kept: 1 }, keysRebound: 0, limiterItemsMoved: 0 });
    expect(again.formerKeysDeleted).toBe(0);
    expect(again.formerKeysPending).toHaveLength(2);
    expect(limiter.raw('acct#acct_old')).toEqual(counts);
    clock.set(T0 + GRACE);
    const last = await accountService.migrate();
    expect(last).toMatchObject({ accounts: 1, formerKeysDeleted: 2, formerKeysPending: [] });
    expect([...gateway.members.keys()]).toEqual(['gk-a']);
    expect(keys.byKeyId('key_b')).not.toHaveProperty('formerGatewayKeyId');
  });

  it('reads the value of an adopted key whose record lacks it, and creates one when no key has any', async () => {
    const context = setup();
    const { accountService, accounts, keys, gateway } = context;
    await accounts.create({ accountId: 'acct_b', name: 'B', plan: 'pro', createdAt: iso(T0) });
    gateway.seedKey('gk-b', 'up-pro', 'key_b');
    await keys.put({ keyHash: 'h', keyId: 'key_b', accountId: 'acct_b', name: 'b', prefix: 'p', last4: 'l', status: 'active', plan: 'pro', gatewayKeyId: 'gk-b', createdAt: iso(T0) });
    await accounts.create({ accountId: 'acct_c', name: 'C', plan: 'business', createdAt: iso(T0) });
    await keys.put({ keyHash: 'h2', keyId: 'key_c', accountId: 'acct_c', name: 'c', prefix: 'p', last4: 'l', status: 'active', plan: 'business', createdAt: iso(T0) });
    const report = await accountService.migrate();
    expect(report.internalKeys).toEqual({ kept: 0, adopted: 1, created: 1, pooled: 0 });
    expect(keys.byKeyId('key_b')).toMatchObject({ gatewayKeyId: 'gk-b', gatewayKeyValue: valueOfGatewayKey('gk-b') });
    expect(keys.byKeyId('key_c')).toMatchObject({ gatewayKeyId: 'gk-1' });
    expect(gateway.calls.filter((c) => c.method !== 'keyValue')).toEqual([
      { method: 'createKey', accountId: 'acct_c', usagePlanId: 'up-business', poolable: false },
    ]);
  });
});
