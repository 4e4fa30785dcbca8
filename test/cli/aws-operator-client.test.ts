import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeyCommand,
  GetUsagePlansCommand,
} from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../support/cli.js';
import { DynamoDbKeyStore } from '../../lambda/keys/dynamodb-key-store.js';
import type { ApiKeyRecord } from '../../lambda/keys/key-store.js';
import { DynamoDbLimiterStore } from '../../lambda/rate-limits/dynamodb-limiter-store.js';
import { createDocumentClient } from '../../lambda/shared/dynamodb.js';
import { loadConfig } from '../../lib/config/index.js';
import { PLATFORM_CONFIG_OUTPUT } from '../../lib/stacks/api-stack-outputs.js';
import { createTables, LOCAL_AWS, LOCAL_TABLE_NAMES, type RunningService, startDynamoDb } from '../../local/emulators.js';

// The operator CLI against a deployed stack (--outputs), in process: the stack's tables on
// dynalite, API Gateway through aws-sdk-client-mock (no emulator of it here).

/**
 * A deployment made with `-c platform=...` overrides: Pro limits, the Enterprise defaults, the
 * backstop factor and the key cache all differ from lib/config's defaults, which the CLI must not use.
 */
const DEPLOYED = loadConfig({
  platform: { region: 'eu-central-1' },
  plans: {
    pro: { limits: { perMinute: 123, perDay: 4_567 } },
    enterprise: { limits: { perMinute: 777, perDay: 77_777 } },
  },
  backstop: { factor: 3 },
  // No authorizer key cache: a revoked key's marker lasts the 5 s margin only.
  auth: { keyCacheSeconds: 0 },
});
const DEFAULTS = loadConfig();

const dir = mkdtempSync(join(tmpdir(), 'cli-aws-'));
const apiGateway = mockClient(APIGatewayClient);
let dynamodb: RunningService;
let file: string;
let keys: DynamoDbKeyStore;
let limiter: DynamoDbLimiterStore;

beforeAll(async () => {
  dynamodb = await startDynamoDb();
  await createTables(dynamodb.endpoint);
  file = join(dir, 'outputs.json');
  writeFileSync(
    file,
    JSON.stringify({
      'Test-Data': {},
      'Test-Api': {
        ApiKeysTableName: LOCAL_TABLE_NAMES.apiKeys,
        AccountsTableName: LOCAL_TABLE_NAMES.accounts,
        RateLimitsTableName: LOCAL_TABLE_NAMES.rateLimits,
        RestApiId: 'abc123',
        StageName: 'v1',
        FreeUsagePlanId: 'up-free',
        ProUsagePlanId: 'up-pro',
        BusinessUsagePlanId: 'up-business',
        [PLATFORM_CONFIG_OUTPUT]: JSON.stringify(DEPLOYED),
      },
    }),
  );
  const documents = createDocumentClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint });
  keys = new DynamoDbKeyStore(documents, LOCAL_TABLE_NAMES.apiKeys);
  limiter = new DynamoDbLimiterStore(documents, LOCAL_TABLE_NAMES.rateLimits);
  // The SDK reads these itself: the endpoint of DynamoDB, and credentials the emulator accepts.
  vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamodb.endpoint);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
});

afterAll(async () => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
  await dynamodb?.stop();
});

beforeEach(() => {
  apiGateway.reset();
  let next = 0;
  apiGateway.on(CreateApiKeyCommand).callsFake(() => {
    next += 1;
    return { id: `gk-${next}`, value: `generated-value-of-gk-${next}` };
  });
  apiGateway.on(CreateUsagePlanKeyCommand).resolves({});
  apiGateway.on(DeleteUsagePlanKeyCommand).resolves({});
  apiGateway.on(DeleteApiKeyCommand).resolves({});
});

async function cli(...argv: string[]) {
  // No --region: the outputs file's published config names the deployment's (eu-central-1).
  const outcome = await runCli([...argv, '--outputs', file, '--json']);
  return { ...outcome, body: JSON.parse(outcome.stdout) as Record<string, unknown> };
}

async function json<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
  const out = await cli(...argv);
  expect(out.code, out.stderr).toBe(0);
  return out.body as T;
}

async function record(accountId: string, keyId: string): Promise<ApiKeyRecord> {
  const found = (await keys.listByAccount(accountId)).find((r) => r.keyId === keyId);
  if (!found) throw new Error(`no record of ${keyId}`);
  return found;
}

describe('the account service on a deployed stack (DynamoDB on dynalite, API Gateway mocked)', () => {
  it('creates an account with its one internal key, keys that copy it, and revokes a key without touching it', async () => {
    const account = await json('accounts', 'create', '--name', 'Deployed', '--plan', 'free');
    const accountId = account.accountId as string;
    expect(account).toMatchObject({ plan: 'free', limits: DEFAULTS.plans.free.limits });
    expect(apiGateway.commandCalls(CreateApiKeyCommand)[0]?.args[0].input).toMatchObject({ name: `internal-${accountId}` });
    expect(apiGateway.commandCalls(CreateUsagePlanKeyCommand)[0]?.args[0].input).toEqual({
      usagePlanId: 'up-free',
      keyId: 'gk-1',
      keyType: 'API_KEY',
    });

    const first = (await json<{ key: { keyId: string } }>('keys', 'create', '--account', accountId, '--name', 'prod')).key.keyId;
    const second = (await json<{ key: { keyId: string } }>('keys', 'create', '--account', accountId, '--name', 'ci')).key.keyId;
    // The authorizer reads the account's usage identifier from each record: no API key per customer key.
    for (const keyId of [first, second]) {
      expect(await record(accountId, keyId)).toMatchObject({ gatewayKeyId: 'gk-1', gatewayKeyValue: 'generated-value-of-gk-1' });
    }
    expect(apiGateway.commandCalls(CreateApiKeyCommand)).toHaveLength(1);
    expect(apiGateway.commandCalls(GetApiKeyCommand)).toEqual([]);

    expect(await json('keys', 'revoke', '--account', accountId, '--key', first)).toMatchObject({ keyId: first, status: 'revoked' });
    expect(apiGateway.commandCalls(DeleteApiKeyCommand)).toEqual([]);
    expect(await limiter.get(`acct#${accountId}`)).toMatchObject({ keys: { [first]: { revokedUntil: expect.any(Number) } } });

    const usage = await json<{ minute: unknown; keys: Array<{ keyId: string; status: string }> }>('usage', '--account', accountId);
    expect(usage.minute).toMatchObject({ used: 0, limit: 60 });
    expect(usage.keys.map((k) => [k.keyId, k.status]).sort()).toEqual([[first, 'revoked'], [second, 'active']].sort());

    const unknown = await cli('accounts', 'show', '--account', 'acct_nope');
    expect(unknown.code).toBe(1);
    expect(unknown.body).toEqual({ error: { message: 'No account acct_nope.', code: 'account_not_found', status: 404, exitCode: 1 } });
  });

  it('a plan change writes the deployment\'s overridden limits, and sizes the Enterprise backstop from its config', async () => {
    const accountId = (await json<{ accountId: string }>('accounts', 'create', '--name', 'Overridden', '--plan', 'free')).accountId;
    const { keyId } = (await json<{ key: { keyId: string } }>('keys', 'create', '--account', accountId, '--name', 'k')).key;

    // Pro as deployed (123/min, 4,567/day), not lib/config's default Pro (300/min, 10,000/day).
    expect(DEFAULTS.plans.pro.limits).not.toEqual(DEPLOYED.plans.pro.limits);
    expect(await json('plans', 'set', '--account', accountId, '--plan', 'pro')).toMatchObject({
      plan: 'pro',
      limits: { perMinute: 123, perDay: 4_567 },
      customLimits: false,
    });
    expect(await limiter.get(`acct#${accountId}`)).toMatchObject({ minuteLimit: 123, dayLimit: 4_567 });
    expect(await record(accountId, keyId)).toMatchObject({ plan: 'pro', gatewayKeyId: 'gk-1', gatewayKeyValue: 'generated-value-of-gk-1' });
    expect((await json('usage', '--account', accountId)).limits).toEqual({ perMinute: 123, perDay: 4_567 });

    // Enterprise without agreed limits: the deployment's Enterprise defaults, its backstop factor 3.
    apiGateway.on(GetUsagePlansCommand).resolves({ items: [] });
    apiGateway.on(CreateUsagePlanCommand).resolves({ id: 'up-ent-1' });
    expect(await json('plans', 'set', '--account', accountId, '--plan', 'enterprise')).toMatchObject({
      plan: 'enterprise',
      limits: { perMinute: 777, perDay: 77_777 },
    });
    expect(apiGateway.commandCalls(CreateUsagePlanCommand)[0]?.args[0].input).toMatchObject({
      name: `enterprise-${accountId}`,
      throttle: { rateLimit: Math.ceil((777 * 3) / 60), burstLimit: Math.max(500, 777 * 3) },
      quota: { limit: 77_777 * 3, period: 'DAY' },
    });
    // The account's one internal key moved to its own usage plan.
    expect(apiGateway.commandCalls(DeleteUsagePlanKeyCommand).map((c) => c.args[0].input)).toEqual([
      { usagePlanId: 'up-free', keyId: 'gk-1' },
      { usagePlanId: 'up-pro', keyId: 'gk-1' },
    ]);
    expect(await record(accountId, keyId)).toMatchObject({ plan: 'enterprise', limits: { perMinute: 777, perDay: 77_777 } });
    expect(await limiter.get(`acct#${accountId}`)).toMatchObject({ minuteLimit: 777, dayLimit: 77_777 });
  });
});
