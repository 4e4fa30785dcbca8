import {
  APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanCommand,
  DeleteUsagePlanKeyCommand,
  GetUsagePlanCommand,
  GetUsagePlanKeyCommand,
  GetUsagePlansCommand,
  LimitExceededException,
  NotFoundException,
  TooManyRequestsException,
  UpdateUsagePlanCommand,
} from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiGatewayUsagePlanGateway, ApiKeyQuotaError } from '../../../lambda/keys/api-gateway-usage-plan-gateway.js';
import { MANAGEMENT_PLANE, usagePlanUpdateRetry } from '../../../lambda/shared/aws-clients.js';
import { loadConfig } from '../../../lib/config/index.js';

const gateway = mockClient(APIGatewayClient);
const config = loadConfig();
const API = 'api123';
const STAGE = 'v1';
const PLANS = { free: 'up-free', pro: 'up-pro', business: 'up-business' };
// backstopFor with the default factor 2 and minimum burst 500.
const LIMITS = { perMinute: 3000, perDay: 1_000_000 };
const BACKSTOP = { rateLimit: 100, burstLimit: 6000, quota: 2_000_000 };

const COMMANDS = {
  CreateApiKey: CreateApiKeyCommand,
  CreateUsagePlan: CreateUsagePlanCommand,
  CreateUsagePlanKey: CreateUsagePlanKeyCommand,
  DeleteApiKey: DeleteApiKeyCommand,
  DeleteUsagePlan: DeleteUsagePlanCommand,
  DeleteUsagePlanKey: DeleteUsagePlanKeyCommand,
  GetUsagePlan: GetUsagePlanCommand,
  GetUsagePlanKey: GetUsagePlanKeyCommand,
  GetUsagePlans: GetUsagePlansCommand,
  UpdateUsagePlan: UpdateUsagePlanCommand,
} as const;

/** Every command sent, in order, as [operation, input]. */
function sent(): Array<[string, unknown]> {
  return gateway.calls().map((call) => {
    const command = call.args[0];
    const name = Object.entries(COMMANDS).find(([, type]) => command instanceof type)?.[0] ?? 'unknown';
    return [name, command.input];
  });
}

const meta = { $metadata: {} };
const throttled = () => new TooManyRequestsException({ message: 'Too Many Requests', ...meta });
const notFound = () => new NotFoundException({ message: 'Invalid resource', ...meta });
const conflict = () => new ConflictException({ message: 'already exists', ...meta });
const quota = () => new LimitExceededException({ message: 'Cannot exceed the limit of API keys', ...meta });

// Both clients answer from the class-level mock; `thisValue` tells which one a command went to.
const client = new APIGatewayClient({ ...MANAGEMENT_PLANE, region: 'eu-west-1' });
const usagePlanUpdates = new APIGatewayClient({ region: 'eu-west-1', retryStrategy: usagePlanUpdateRetry() });
const adapter = () =>
  new ApiGatewayUsagePlanGateway({
    client,
    usagePlanUpdates,
    restApiId: API,
    stageName: STAGE,
    standardPlanIds: PLANS,
    config,
  });

beforeEach(() => {
  gateway.reset();
});

describe('ApiGatewayUsagePlanGateway: keys', () => {
  it('creates an account\'s key: CreateApiKey (internal name, tagged, no value given), then CreateUsagePlanKey in the plan; answers its id and generated value', async () => {
    gateway.on(CreateApiKeyCommand).resolves({ id: 'ak-1', value: 'generated-value-of-ak-1' });
    gateway.on(CreateUsagePlanKeyCommand).resolves({ id: 'ak-1', type: 'API_KEY' });
    expect(await adapter().createKey('acct_abc', 'up-pro', true)).toEqual({ id: 'ak-1', value: 'generated-value-of-ak-1' });
    expect(sent()).toEqual([
      [
        'CreateApiKey',
        {
          name: 'internal-acct_abc',
          description: 'Internal usage identifier of account acct_abc, shared by its API keys; not a customer secret',
          enabled: true,
          tags: { accountId: 'acct_abc' },
        },
      ],
      ['CreateUsagePlanKey', { usagePlanId: 'up-pro', keyId: 'ak-1', keyType: 'API_KEY' }],
    ]);
  });

  it('deletes the just-created API key when CreateApiKey answers no value, and fails', async () => {
    gateway.on(CreateApiKeyCommand).resolves({ id: 'ak-6' });
    gateway.on(DeleteApiKeyCommand).resolves({});
    await expect(adapter().createKey('acct_w', 'up-pro', true)).rejects.toThrow('API key ak-6 (account acct_w) has no value');
    expect(sent().map(([name]) => name)).toEqual(['CreateApiKey', 'DeleteApiKey']);
  });

  it('answers undefined (the plan\'s pooled key) when the API key quota is reached for a poolable key', async () => {
    gateway.on(CreateApiKeyCommand).rejects(quota());
    expect(await adapter().createKey('key_free', 'up-free', true)).toBeUndefined();
    expect(sent().map(([name]) => name)).toEqual(['CreateApiKey']);
  });

  it('fails loudly when the API key quota is reached for a key that may not be pooled', async () => {
    gateway.on(CreateApiKeyCommand).rejects(quota());
    const error = await adapter()
      .createKey('key_biz', 'up-business', false)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiKeyQuotaError);
    expect((error as Error).message).toMatch(/key_biz.*API keys per region quota.*fixed by AWS.*another Region/s);
    expect((error as Error).cause).toBeInstanceOf(LimitExceededException);
    expect(sent().map(([name]) => name)).toEqual(['CreateApiKey']);
  });

  it('deletes the just-created API key when binding it to the usage plan fails, and rethrows', async () => {
    const failure = new NotFoundException({ message: 'Invalid Usage Plan ID specified', ...meta });
    gateway.on(CreateApiKeyCommand).resolves({ id: 'ak-2', value: 'value-of-ak-2' });
    gateway.on(CreateUsagePlanKeyCommand).rejects(failure);
    gateway.on(DeleteApiKeyCommand).resolves({});
    await expect(adapter().createKey('key_x', 'up-gone', true)).rejects.toBe(failure);
    expect(sent()).toEqual([
      ['CreateApiKey', expect.objectContaining({ name: 'internal-key_x' })],
      ['CreateUsagePlanKey', { usagePlanId: 'up-gone', keyId: 'ak-2', keyType: 'API_KEY' }],
      ['DeleteApiKey', { apiKey: 'ak-2' }],
    ]);
  });

  it('names the orphaned API key when the cleanup fails too', async () => {
    gateway.on(CreateApiKeyCommand).resolves({ id: 'ak-3', value: 'value-of-ak-3' });
    gateway.on(CreateUsagePlanKeyCommand).rejects(new Error('boom'));
    gateway.on(DeleteApiKeyCommand).rejects(new Error('denied'));
    await expect(adapter().createKey('key_y', 'up-pro', true)).rejects.toThrow(
      /ak-3.*boom.*denied.*delete it by hand/,
    );
  });

  it('treats a conflict on binding as done when the key is in that plan already', async () => {
    gateway.on(CreateApiKeyCommand).resolves({ id: 'ak-4', value: 'value-of-ak-4' });
    gateway.on(CreateUsagePlanKeyCommand).rejects(conflict());
    gateway.on(GetUsagePlanKeyCommand).resolves({ id: 'ak-4', type: 'API_KEY' });
    expect(await adapter().createKey('key_z', 'up-pro', true)).toEqual({ id: 'ak-4', value: 'value-of-ak-4' });
    expect(sent().map(([name, input]) => [name, name === 'CreateApiKey' ? undefined : input])).toEqual([
      ['CreateApiKey', undefined],
      ['CreateUsagePlanKey', { usagePlanId: 'up-pro', keyId: 'ak-4', keyType: 'API_KEY' }],
      ['GetUsagePlanKey', { usagePlanId: 'up-pro', keyId: 'ak-4' }],
    ]);
  });

  it('moves a key: DeleteUsagePlanKey from the old plan, then CreateUsagePlanKey in the new one', async () => {
    gateway.on(DeleteUsagePlanKeyCommand).resolves({});
    gateway.on(CreateUsagePlanKeyCommand).resolves({ id: 'ak-1' });
    await adapter().moveKey('ak-1', 'up-free', 'up-pro');
    expect(sent()).toEqual([
      ['DeleteUsagePlanKey', { usagePlanId: 'up-free', keyId: 'ak-1' }],
      ['CreateUsagePlanKey', { usagePlanId: 'up-pro', keyId: 'ak-1', keyType: 'API_KEY' }],
    ]);
  });

  it('completes an interrupted move: not in the old plan any more, already in the new one', async () => {
    gateway.on(DeleteUsagePlanKeyCommand).rejects(notFound());
    gateway.on(CreateUsagePlanKeyCommand).rejects(conflict());
    gateway.on(GetUsagePlanKeyCommand).resolves({ id: 'ak-1' });
    await adapter().moveKey('ak-1', 'up-free', 'up-pro');
    expect(sent().map(([name]) => name)).toEqual(['DeleteUsagePlanKey', 'CreateUsagePlanKey', 'GetUsagePlanKey']);
  });

  it('does not hide a conflict when the key is not in the target plan (e.g. bound elsewhere on the stage)', async () => {
    gateway.on(DeleteUsagePlanKeyCommand).resolves({});
    gateway.on(CreateUsagePlanKeyCommand).rejects(conflict());
    gateway.on(GetUsagePlanKeyCommand).rejects(notFound());
    await expect(adapter().moveKey('ak-1', 'up-free', 'up-pro')).rejects.toBeInstanceOf(ConflictException);
  });

  it('does nothing to move a key within one plan', async () => {
    await adapter().moveKey('ak-1', 'up-pro', 'up-pro');
    expect(sent()).toEqual([]);
  });

  it('revokes a key with DeleteApiKey alone (which also unbinds it); a missing key is already done', async () => {
    gateway.on(DeleteApiKeyCommand).resolvesOnce({}).rejects(notFound());
    await adapter().deleteKey('ak-1');
    await adapter().deleteKey('ak-1');
    expect(sent()).toEqual([
      ['DeleteApiKey', { apiKey: 'ak-1' }],
      ['DeleteApiKey', { apiKey: 'ak-1' }],
    ]);
  });

  it('gives the standard plans\' usage plans from its options', () => {
    const a = adapter();
    expect([a.standardPlanId('free'), a.standardPlanId('pro'), a.standardPlanId('business')]).toEqual([
      'up-free',
      'up-pro',
      'up-business',
    ]);
    expect(sent()).toEqual([]);
  });
});

describe('ApiGatewayUsagePlanGateway: Enterprise usage plans', () => {
  const ours = { apiId: API, stage: STAGE };

  it('creates enterprise-<accountId> on the stage with backstopFor(limits) per DAY, tagged, after looking for one', async () => {
    gateway.on(GetUsagePlansCommand).resolves({ items: [{ id: 'up-free', name: 'Api-free', apiStages: [ours] }] });
    gateway.on(CreateUsagePlanCommand).resolves({ id: 'up-ent' });
    expect(await adapter().createAccountPlan('acct_1', LIMITS)).toBe('up-ent');
    expect(sent()).toEqual([
      ['GetUsagePlans', { limit: 500 }],
      [
        'CreateUsagePlan',
        {
          name: 'enterprise-acct_1',
          description: expect.stringContaining('acct_1'),
          apiStages: [{ apiId: API, stage: STAGE }],
          throttle: { rateLimit: BACKSTOP.rateLimit, burstLimit: BACKSTOP.burstLimit },
          quota: { limit: BACKSTOP.quota, period: 'DAY' },
          tags: { accountId: 'acct_1' },
        },
      ],
    ]);
  });

  it('adopts the plan an earlier run created (found on a later page), updating its limits when they differ', async () => {
    gateway
      .on(GetUsagePlansCommand)
      .resolvesOnce({ items: [{ id: 'up-free', name: 'Api-free', apiStages: [ours] }], position: 'p2' })
      .resolvesOnce({
        items: [
          // Same name on another API (another stack in the account): not ours.
          { id: 'up-other', name: 'enterprise-acct_1', apiStages: [{ apiId: 'other', stage: STAGE }] },
          {
            id: 'up-ent',
            name: 'enterprise-acct_1',
            apiStages: [ours],
            throttle: { rateLimit: 1, burstLimit: 500 },
            quota: { limit: 10, period: 'DAY' },
          },
        ],
      });
    gateway.on(UpdateUsagePlanCommand).resolves({ id: 'up-ent' });
    expect(await adapter().createAccountPlan('acct_1', LIMITS)).toBe('up-ent');
    expect(sent()).toEqual([
      ['GetUsagePlans', { limit: 500 }],
      ['GetUsagePlans', { limit: 500, position: 'p2' }],
      ['UpdateUsagePlan', expect.objectContaining({ usagePlanId: 'up-ent' })],
    ]);
  });

  it('adopts an existing plan with the same limits without an update (UpdateUsagePlan is limited to 1 per 20 s)', async () => {
    gateway.on(GetUsagePlansCommand).resolves({
      items: [
        {
          id: 'up-ent',
          name: 'enterprise-acct_1',
          apiStages: [ours],
          throttle: { rateLimit: BACKSTOP.rateLimit, burstLimit: BACKSTOP.burstLimit },
          quota: { limit: BACKSTOP.quota, period: 'DAY' },
        },
      ],
    });
    expect(await adapter().createAccountPlan('acct_1', LIMITS)).toBe('up-ent');
    expect(sent().map(([name]) => name)).toEqual(['GetUsagePlans']);
  });

  it('updates the limits with three replace operations, values as strings', async () => {
    gateway.on(UpdateUsagePlanCommand).resolves({ id: 'up-ent' });
    await adapter().updateAccountPlan('up-ent', { perMinute: 600, perDay: 50_000 });
    expect(sent()).toEqual([
      [
        'UpdateUsagePlan',
        {
          usagePlanId: 'up-ent',
          patchOperations: [
            { op: 'replace', path: '/throttle/rateLimit', value: '20' },
            { op: 'replace', path: '/throttle/burstLimit', value: '1200' },
            { op: 'replace', path: '/quota/limit', value: '100000' },
          ],
        },
      ],
    ]);
  });

  it('deletes a plan: detach it from the stage, then DeleteUsagePlan', async () => {
    gateway.on(GetUsagePlanCommand).resolves({ id: 'up-ent', apiStages: [ours] });
    gateway.on(UpdateUsagePlanCommand).resolves({ id: 'up-ent', apiStages: [] });
    gateway.on(DeleteUsagePlanCommand).resolves({});
    await adapter().deleteAccountPlan('up-ent');
    expect(sent()).toEqual([
      ['GetUsagePlan', { usagePlanId: 'up-ent' }],
      [
        'UpdateUsagePlan',
        { usagePlanId: 'up-ent', patchOperations: [{ op: 'remove', path: '/apiStages', value: `${API}:${STAGE}` }] },
      ],
      ['DeleteUsagePlan', { usagePlanId: 'up-ent' }],
    ]);
  });

  it('completes an interrupted delete: a detached plan is only deleted, a missing one is done', async () => {
    gateway.on(GetUsagePlanCommand).resolvesOnce({ id: 'up-ent', apiStages: [] }).rejects(notFound());
    gateway.on(DeleteUsagePlanCommand).resolves({});
    await adapter().deleteAccountPlan('up-ent');
    await adapter().deleteAccountPlan('up-ent');
    expect(sent().map(([name]) => name)).toEqual(['GetUsagePlan', 'DeleteUsagePlan', 'GetUsagePlan']);
  });

  it('treats a plan deleted meanwhile (NotFound on detach or delete) as done', async () => {
    gateway.on(GetUsagePlanCommand).resolves({ id: 'up-ent', apiStages: [ours] });
    gateway.on(UpdateUsagePlanCommand).rejects(notFound());
    await adapter().deleteAccountPlan('up-ent');
    expect(sent().map(([name]) => name)).toEqual(['GetUsagePlan', 'UpdateUsagePlan']);

    gateway.reset();
    gateway.on(GetUsagePlanCommand).resolves({ id: 'up-ent', apiStages: [ours] });
    gateway.on(UpdateUsagePlanCommand).resolves({});
    gateway.on(DeleteUsagePlanCommand).rejects(notFound());
    await adapter().deleteAccountPlan('up-ent');
    expect(sent().map(([name]) => name)).toEqual(['GetUsagePlan', 'UpdateUsagePlan', 'DeleteUsagePlan']);
  });
});

describe('ApiGatewayUsagePlanGateway: management-API rate limits', () => {
  it('sends UpdateUsagePlan on the client with the 20 s retry floor, every other call on the management-API client', async () => {
    gateway.on(GetUsagePlansCommand).resolves({ items: [{ id: 'up-ent', name: 'enterprise-acct_2', apiStages: [{ apiId: API, stage: STAGE }] }] });
    gateway.on(UpdateUsagePlanCommand).resolves({});
    gateway.on(GetUsagePlanCommand).resolves({ id: 'up-ent', apiStages: [{ apiId: API, stage: STAGE }] });
    gateway.on(DeleteUsagePlanCommand).resolves({});
    await adapter().createAccountPlan('acct_2', LIMITS);
    await adapter().deleteAccountPlan('up-ent');
    const byClient = gateway.calls().map((call) => [
      Object.entries(COMMANDS).find(([, type]) => call.args[0] instanceof type)?.[0],
      call.thisValue === usagePlanUpdates ? 'updates' : call.thisValue === client ? 'control' : 'other',
    ]);
    expect(byClient).toEqual([
      ['GetUsagePlans', 'control'],
      ['UpdateUsagePlan', 'updates'],
      ['GetUsagePlan', 'control'],
      ['UpdateUsagePlan', 'updates'],
      ['DeleteUsagePlan', 'control'],
    ]);
  });

  it('leaves retries to the SDK: a throttle that outlasts them reaches the caller after one send', async () => {
    const error = throttled();
    gateway.on(DeleteUsagePlanKeyCommand).rejects(error);
    await expect(adapter().moveKey('ak-1', 'up-free', 'up-pro')).rejects.toBe(error);
    expect(sent().map(([name]) => name)).toEqual(['DeleteUsagePlanKey']);
  });
});
