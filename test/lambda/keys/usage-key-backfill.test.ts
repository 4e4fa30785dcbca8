import { describe, expect, it } from 'vitest';
import { ControlPlane, ControlPlaneError } from '../../../lambda/keys/control-plane.js';
import type { ApiKeyRecord } from '../../../lambda/keys/key-store.js';
import { MemoryLimiterStore } from '../../../lambda/rate-limits/memory-limiter-store.js';
import { ManualClock } from '../../../lambda/shared/clock.js';
import { loadConfig, type PlanId } from '../../../lib/config/index.js';
import { FakeAccountStore, FakeKeyStore, FakeUsagePlanGateway, valueOfGatewayKey } from './fakes.js';

const T0 = Date.UTC(2026, 10, 21, 10, 15, 30, 123);

function setup() {
  const accounts = new FakeAccountStore();
  const keys = new FakeKeyStore();
  const gateway = new FakeUsagePlanGateway();
  const controlPlane = new ControlPlane({
    accounts,
    keys,
    limiter: new MemoryLimiterStore(),
    gateway,
    clock: new ManualClock(T0),
    config: loadConfig(),
  });
  const record = (keyId: string): ApiKeyRecord => {
    const found = keys.byKeyId(keyId);
    if (!found) throw new Error(`no record of ${keyId}`);
    return found;
  };
  /** A key as created before values were stored: its record names the internal key, without its value. */
  const legacyKey = async (accountId: string, name = 'legacy') => {
    const { key } = await controlPlane.createKey(accountId, name);
    await keys.update(record(key.keyId).keyHash, { gatewayKeyValue: undefined });
    return key.keyId;
  };
  const account = (accountId: string, plan: PlanId = 'pro') => controlPlane.createAccount({ accountId, name: 'Acme', plan });
  return { accounts, keys, gateway, controlPlane, record, legacyKey, account };
}

const clearCalls = (keys: FakeKeyStore, gateway: FakeUsagePlanGateway) => {
  keys.calls.length = 0;
  gateway.calls.length = 0;
};

describe('ControlPlane.backfillUsageKeys', () => {
  it('stores each legacy record\'s internal key value, read from the gateway, and touches nothing else', async () => {
    const { controlPlane, keys, gateway, record, legacyKey, account } = setup();
    await account('acct_1');
    const first = await legacyKey('acct_1', 'first');
    const second = await legacyKey('acct_1', 'second');
    const current = (await controlPlane.createKey('acct_1', 'current')).key.keyId;
    const before = record(current);
    clearCalls(keys, gateway);

    const result = await controlPlane.backfillUsageKeys('acct_1');
    expect(result).toEqual({
      accountId: 'acct_1',
      checked: 3,
      filled: [first, second].sort(),
      alreadyStored: 1,
      pooled: 0,
      revoked: 0,
      internalKeyMissing: [],
      changed: [],
    });
    expect(record(first).gatewayKeyValue).toBe(valueOfGatewayKey(record(first).gatewayKeyId as string));
    expect(record(second).gatewayKeyValue).toBe(valueOfGatewayKey(record(second).gatewayKeyId as string));
    expect(record(current)).toEqual(before);
    // Reads the gateway for the two legacy records only; writes each only while it is still bound to that key.
    expect(gateway.calls.map((c) => c.method)).toEqual(['keyValue', 'keyValue']);
    expect(keys.calls.filter((c) => c.method === 'update').map((c) => c.args.slice(1))).toEqual(
      [first, second].sort().map((keyId) => [
        { gatewayKeyValue: valueOfGatewayKey(record(keyId).gatewayKeyId as string) },
        { status: 'active', gatewayKeyId: record(keyId).gatewayKeyId },
      ]),
    );
  });

  it('is idempotent: a second run reads and writes nothing', async () => {
    const { controlPlane, keys, gateway, legacyKey, account } = setup();
    await account('acct_1');
    const keyId = await legacyKey('acct_1');
    expect((await controlPlane.backfillUsageKeys('acct_1')).filled).toEqual([keyId]);
    clearCalls(keys, gateway);
    expect(await controlPlane.backfillUsageKeys('acct_1')).toMatchObject({ checked: 1, filled: [], alreadyStored: 1 });
    expect(gateway.calls).toEqual([]);
    expect(keys.calls.map((c) => c.method)).toEqual(['listByAccount']);
  });

  it('counts pooled and revoked keys and leaves them alone', async () => {
    const { controlPlane, keys, gateway, record, account } = setup();
    await account('acct_1', 'free');
    gateway.quotaReached = true;
    const pooled = (await controlPlane.createKey('acct_1', 'pooled')).key.keyId;
    gateway.quotaReached = false;
    const revoked = (await controlPlane.createKey('acct_1', 'revoked')).key.keyId;
    await controlPlane.revokeKey('acct_1', revoked);
    const snapshot = [record(pooled), record(revoked)];
    clearCalls(keys, gateway);

    expect(await controlPlane.backfillUsageKeys('acct_1')).toEqual({
      accountId: 'acct_1',
      checked: 2,
      filled: [],
      alreadyStored: 0,
      pooled: 1,
      revoked: 1,
      internalKeyMissing: [],
      changed: [],
    });
    expect([record(pooled), record(revoked)]).toEqual(snapshot);
    expect(gateway.calls).toEqual([]);
  });

  it('names a key whose internal key is gone, and leaves its record on the pooled key', async () => {
    const { controlPlane, gateway, record, legacyKey, account } = setup();
    await account('acct_1');
    const keyId = await legacyKey('acct_1');
    const before = record(keyId);
    gateway.members.delete(before.gatewayKeyId as string);
    expect(await controlPlane.backfillUsageKeys('acct_1')).toMatchObject({ filled: [], internalKeyMissing: [keyId] });
    expect(record(keyId)).toEqual(before);
  });

  it('does not write a value into a record revoked while the run read it (names it as changed)', async () => {
    const { controlPlane, keys, gateway, record, legacyKey, account } = setup();
    await account('acct_1');
    const keyId = await legacyKey('acct_1');
    const read = gateway.keyValue.bind(gateway);
    gateway.keyValue = async (id) => {
      const value = await read(id);
      await controlPlane.revokeKey('acct_1', keyId);
      return value;
    };
    expect(await controlPlane.backfillUsageKeys('acct_1')).toMatchObject({ filled: [], changed: [keyId] });
    expect(record(keyId)).not.toHaveProperty('gatewayKeyValue');
    expect(record(keyId)).toMatchObject({ status: 'revoked' });
    expect(keys.calls.filter((c) => c.method === 'listAll')).toEqual([]);
  });

  it('without an account, fills every account\'s keys from one read of the whole table', async () => {
    const { controlPlane, keys, legacyKey, account } = setup();
    await account('acct_1');
    await account('acct_2', 'business');
    const one = await legacyKey('acct_1');
    const two = await legacyKey('acct_2');
    keys.calls.length = 0;
    const result = await controlPlane.backfillUsageKeys();
    expect(result).toMatchObject({ checked: 2, filled: [one, two].sort() });
    expect(result).not.toHaveProperty('accountId');
    expect(keys.calls.filter((c) => c.method !== 'update').map((c) => c.method)).toEqual(['listAll']);
  });

  it('answers 404 for an unknown account, before reading any key', async () => {
    const { controlPlane, keys, gateway } = setup();
    const error = await controlPlane.backfillUsageKeys('acct_nope').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlPlaneError);
    expect(error).toMatchObject({ code: 'account_not_found', status: 404 });
    expect(keys.calls).toEqual([]);
    expect(gateway.calls).toEqual([]);
  });
});
