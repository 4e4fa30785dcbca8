import { beforeEach, describe, expect, it } from 'vitest';
import { ApiGatewayUsageIdentifiers } from '../../../lambda/keys/api-gateway-usage-identifiers.js';
import { ApiGatewayClient, GetApiKeyCommand } from '../../../lambda/shared/aws/api-gateway.js';
import { mockSend } from '../../support/aws-mock.js';

const client = new ApiGatewayClient({ region: 'eu-west-1' });
const gateway = mockSend(client);
const KEY_IDS = { free: 'kid-free', pro: 'kid-pro', anonymous: 'kid-anon' };
const calls = () => gateway.commandCalls(GetApiKeyCommand).map((c) => c.args[0].input);
const identifiers = () => new ApiGatewayUsageIdentifiers(client, KEY_IDS);

beforeEach(() => {
  gateway.reset();
  gateway.on(GetApiKeyCommand, { apiKey: 'kid-free' }).resolves({ id: 'kid-free', value: 'value-free' });
  gateway.on(GetApiKeyCommand, { apiKey: 'kid-pro' }).resolves({ id: 'kid-pro', value: 'value-pro' });
  gateway.on(GetApiKeyCommand, { apiKey: 'kid-anon' }).resolves({ id: 'kid-anon', value: 'value-anon' });
  gateway.on(GetApiKeyCommand, { apiKey: 'gk-own-1' }).resolves({ id: 'gk-own-1', value: 'value-own-1' });
  gateway.on(GetApiKeyCommand, { apiKey: 'gk-own-2' }).resolves({ id: 'gk-own-2', value: 'value-own-2' });
});

describe('ApiGatewayUsageIdentifiers', () => {
  it('reads a plan\'s internal key value once, with includeValue, and reuses it', async () => {
    const ids = identifiers();
    expect(await ids.valueFor({ plan: 'free' })).toBe('value-free');
    expect(await ids.valueFor({ plan: 'free' })).toBe('value-free');
    expect(calls()).toEqual([{ apiKey: 'kid-free', includeValue: true }]);
  });

  it('shares one request between concurrent first lookups', async () => {
    const ids = identifiers();
    expect(await Promise.all([ids.valueFor({ plan: 'pro' }), ids.valueFor({ plan: 'pro' }), ids.valueFor({ plan: 'pro' })])).toEqual([
      'value-pro',
      'value-pro',
      'value-pro',
    ]);
    expect(calls()).toHaveLength(1);
  });

  it('reads each plan (and anonymous) on its own', async () => {
    const ids = identifiers();
    expect(await ids.valueFor({ plan: 'free' })).toBe('value-free');
    expect(await ids.valueFor({ plan: 'pro' })).toBe('value-pro');
    expect(await ids.valueFor({ plan: 'anonymous' })).toBe('value-anon');
    await ids.valueFor({ plan: 'pro' });
    expect(calls()).toEqual([
      { apiKey: 'kid-free', includeValue: true },
      { apiKey: 'kid-pro', includeValue: true },
      { apiKey: 'kid-anon', includeValue: true },
    ]);
  });

  it('does not cache a failure: the next lookup asks again', async () => {
    gateway.on(GetApiKeyCommand, { apiKey: 'kid-free' }).rejectsOnce(new Error('TooManyRequests')).resolves({
      value: 'value-free',
    });
    const ids = identifiers();
    await expect(ids.valueFor({ plan: 'free' })).rejects.toThrow('TooManyRequests');
    expect(await ids.valueFor({ plan: 'free' })).toBe('value-free');
    expect(calls()).toHaveLength(2);
  });

  it('does not cache a key without a value', async () => {
    gateway
      .on(GetApiKeyCommand, { apiKey: 'kid-pro' })
      .resolvesOnce({ id: 'kid-pro' })
      .resolves({ value: 'value-pro' });
    const ids = identifiers();
    await expect(ids.valueFor({ plan: 'pro' })).rejects.toThrow('API key kid-pro has no value');
    expect(await ids.valueFor({ plan: 'pro' })).toBe('value-pro');
    expect(calls()).toHaveLength(2);
  });

  it('refuses a plan without an internal key, without calling API Gateway', async () => {
    const ids = identifiers();
    await expect(async () => ids.valueFor({ plan: 'business' })).rejects.toThrow('no internal API key for usage plan business');
    expect(calls()).toEqual([]);
  });
});

describe('ApiGatewayUsageIdentifiers: keys with their own internal key', () => {
  it('reads the key\'s own internal key (not its plan\'s pooled one) once, with includeValue', async () => {
    const ids = identifiers();
    expect(await ids.valueFor({ plan: 'free', gatewayKeyId: 'gk-own-1' })).toBe('value-own-1');
    expect(await ids.valueFor({ plan: 'free', gatewayKeyId: 'gk-own-1' })).toBe('value-own-1');
    expect(calls()).toEqual([{ apiKey: 'gk-own-1', includeValue: true }]);
  });

  it('caches per internal key id: two keys of one plan are read separately, and apart from the pool', async () => {
    const ids = identifiers();
    expect(await ids.valueFor({ plan: 'pro', gatewayKeyId: 'gk-own-1' })).toBe('value-own-1');
    expect(await ids.valueFor({ plan: 'pro', gatewayKeyId: 'gk-own-2' })).toBe('value-own-2');
    expect(await ids.valueFor({ plan: 'pro' })).toBe('value-pro');
    await ids.valueFor({ plan: 'pro', gatewayKeyId: 'gk-own-1' });
    await ids.valueFor({ plan: 'pro', gatewayKeyId: 'gk-own-2' });
    await ids.valueFor({ plan: 'pro' });
    expect(calls()).toEqual([
      { apiKey: 'gk-own-1', includeValue: true },
      { apiKey: 'gk-own-2', includeValue: true },
      { apiKey: 'kid-pro', includeValue: true },
    ]);
  });

  it('keeps a key\'s value across a plan change (the cache is by internal key id, not by plan)', async () => {
    const ids = identifiers();
    expect(await ids.valueFor({ plan: 'free', gatewayKeyId: 'gk-own-1' })).toBe('value-own-1');
    expect(await ids.valueFor({ plan: 'pro', gatewayKeyId: 'gk-own-1' })).toBe('value-own-1');
    expect(calls()).toHaveLength(1);
  });

  it('needs no pooled key for a key that has its own (plans without a pooled key included)', async () => {
    const ids = identifiers();
    expect(await ids.valueFor({ plan: 'business', gatewayKeyId: 'gk-own-2' })).toBe('value-own-2');
    expect(calls()).toEqual([{ apiKey: 'gk-own-2', includeValue: true }]);
  });

  it('shares one request between concurrent first lookups of a key', async () => {
    const ids = identifiers();
    const target = { plan: 'enterprise' as const, gatewayKeyId: 'gk-own-1' };
    expect(await Promise.all([ids.valueFor(target), ids.valueFor(target)])).toEqual(['value-own-1', 'value-own-1']);
    expect(calls()).toHaveLength(1);
  });

  it('does not cache a failure for a key (e.g. its internal key was deleted): the next lookup asks again', async () => {
    gateway
      .on(GetApiKeyCommand, { apiKey: 'gk-own-1' })
      .rejectsOnce(Object.assign(new Error('Invalid API Key identifier specified'), { name: 'NotFoundException' }))
      .resolves({ value: 'value-own-1' });
    const ids = identifiers();
    await expect(ids.valueFor({ plan: 'pro', gatewayKeyId: 'gk-own-1' })).rejects.toThrow('Invalid API Key identifier');
    expect(await ids.valueFor({ plan: 'pro', gatewayKeyId: 'gk-own-1' })).toBe('value-own-1');
    expect(calls()).toEqual([
      { apiKey: 'gk-own-1', includeValue: true },
      { apiKey: 'gk-own-1', includeValue: true },
    ]);
  });

  it('bounds its cache: past 10,000 values it starts over, so a value read before is read again', async () => {
    gateway.on(GetApiKeyCommand).callsFake(async (input: { apiKey: string }) => ({ value: `value-${input.apiKey}` }));
    const ids = identifiers();
    for (let i = 0; i <= 10_000; i++) await ids.valueFor({ plan: 'pro', gatewayKeyId: `gk-${i}` });
    expect(calls()).toHaveLength(10_001);
    // Still cached: 10,001 values are held (the cache is cleared only when a new one comes in).
    expect(await ids.valueFor({ plan: 'pro', gatewayKeyId: 'gk-0' })).toBe('value-gk-0');
    expect(calls()).toHaveLength(10_001);
    // A new value clears the cache before it is stored: gk-0 is read again, the new one is not.
    expect(await ids.valueFor({ plan: 'pro', gatewayKeyId: 'gk-new' })).toBe('value-gk-new');
    expect(await ids.valueFor({ plan: 'pro', gatewayKeyId: 'gk-new' })).toBe('value-gk-new');
    expect(await ids.valueFor({ plan: 'pro', gatewayKeyId: 'gk-0' })).toBe('value-gk-0');
    expect(calls().slice(10_001).map((c) => c.apiKey)).toEqual(['gk-new', 'gk-0']);
  });
});
