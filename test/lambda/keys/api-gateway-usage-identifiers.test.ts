import { APIGatewayClient, GetApiKeyCommand } from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiGatewayUsageIdentifiers } from '../../../lambda/keys/api-gateway-usage-identifiers.js';

const gateway = mockClient(APIGatewayClient);
const KEY_IDS = { free: 'kid-free', pro: 'kid-pro', anonymous: 'kid-anon' };
const calls = () => gateway.commandCalls(GetApiKeyCommand).map((c) => c.args[0].input);
const identifiers = () => new ApiGatewayUsageIdentifiers(new APIGatewayClient({ region: 'eu-west-1' }), KEY_IDS);

beforeEach(() => {
  gateway.reset();
  gateway.on(GetApiKeyCommand, { apiKey: 'kid-free' }).resolves({ id: 'kid-free', value: 'value-free' });
  gateway.on(GetApiKeyCommand, { apiKey: 'kid-pro' }).resolves({ id: 'kid-pro', value: 'value-pro' });
  gateway.on(GetApiKeyCommand, { apiKey: 'kid-anon' }).resolves({ id: 'kid-anon', value: 'value-anon' });
});

describe('ApiGatewayUsageIdentifiers', () => {
  it('reads a plan\'s internal key value once, with includeValue, and reuses it', async () => {
    const ids = identifiers();
    expect(await ids.valueFor('free')).toBe('value-free');
    expect(await ids.valueFor('free')).toBe('value-free');
    expect(calls()).toEqual([{ apiKey: 'kid-free', includeValue: true }]);
  });

  it('shares one request between concurrent first lookups', async () => {
    const ids = identifiers();
    expect(await Promise.all([ids.valueFor('pro'), ids.valueFor('pro'), ids.valueFor('pro')])).toEqual([
      'value-pro',
      'value-pro',
      'value-pro',
    ]);
    expect(calls()).toHaveLength(1);
  });

  it('reads each plan (and anonymous) on its own', async () => {
    const ids = identifiers();
    expect(await ids.valueFor('free')).toBe('value-free');
    expect(await ids.valueFor('pro')).toBe('value-pro');
    expect(await ids.valueFor('anonymous')).toBe('value-anon');
    await ids.valueFor('pro');
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
    await expect(ids.valueFor('free')).rejects.toThrow('TooManyRequests');
    expect(await ids.valueFor('free')).toBe('value-free');
    expect(calls()).toHaveLength(2);
  });

  it('does not cache a key without a value', async () => {
    gateway
      .on(GetApiKeyCommand, { apiKey: 'kid-pro' })
      .resolvesOnce({ id: 'kid-pro' })
      .resolves({ value: 'value-pro' });
    const ids = identifiers();
    await expect(ids.valueFor('pro')).rejects.toThrow('API key kid-pro has no value');
    expect(await ids.valueFor('pro')).toBe('value-pro');
    expect(calls()).toHaveLength(2);
  });

  it('refuses a plan without an internal key, without calling API Gateway', async () => {
    const ids = identifiers();
    await expect(async () => ids.valueFor('business')).rejects.toThrow('no internal API key for usage plan business');
    expect(calls()).toEqual([]);
  });
});
