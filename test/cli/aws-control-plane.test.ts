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
  NotFoundException,
} from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { run } from '../../cli/commands.js';
import { DynamoDbKeyStore } from '../../lambda/keys/dynamodb-key-store.js';
import type { ApiKeyRecord } from '../../lambda/keys/key-store.js';
import { DynamoDbLimiterStore } from '../../lambda/rate-limits/dynamodb-limiter-store.js';
import { keySubjectId } from '../../lambda/rate-limits/rate-limiter.js';
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
  // No authorizer key cache: a revocation deletes the internal key at once (the default keeps it 30 s + 5 s).
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
  let stdout = '';
  let stderr = '';
  // No --region: the outputs file's published config names the deployment's (eu-central-1).
  const code = await run([...argv, '--outputs', file, '--json'], {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: {},
  });
  return { code, stdout, stderr, body: JSON.parse(stdout) as Record<string, unknown> };
}

async function json<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
  const out = await cli(...argv);
  expect(out.code, out.stderr).toBe(0);
  return out.body as T;
}

async function record(keyId: string): Promise<ApiKeyRecord> {
  const found = (await keys.listAll()).find((r) => r.keyId === keyId);
  if (!found) throw new Error(`no record of ${keyId}`);
  return found;
}

describe('the control plane on a deployed stack (DynamoDB on dynalite, API Gateway mocked)', () => {
  it('creates an account and a key bound to its plan\'s usage plan, storing the internal key\'s value, then revokes it', async () => {
    const account = await json('accounts', 'create', '--name', 'Deployed', '--plan', 'free');
    const accountId = account.accountId as string;
    expect(account).toMatchObject({ plan: 'free', limits: DEFAULTS.plans.free.limits });

    const created = await json<{ key: { keyId: string } }>('keys', 'create', '--account', accountId, '--name', 'prod');
    const { keyId } = created.key;
    expect(apiGateway.commandCalls(CreateApiKeyCommand)[0]?.args[0].input).toMatchObject({ name: `internal-${keyId}` });
    expect(apiGateway.commandCalls(CreateUsagePlanKeyCommand)[0]?.args[0].input).toEqual({
      usagePlanId: 'up-free',
      keyId: 'gk-1',
      keyType: 'API_KEY',
    });
    // The authorizer reads the usage identifier from the record: CreateApiKey's answer, no GetApiKey.
    expect(await record(keyId)).toMatchObject({ gatewayKeyId: 'gk-1', gatewayKeyValue: 'generated-value-of-gk-1' });
    expect(apiGateway.commandCalls(GetApiKeyCommand)).toEqual([]);

    expect(await json('keys', 'list', '--account', accountId)).toEqual({
      keys: [expect.objectContaining({ keyId, status: 'active' })],
    });
    expect(await json('keys', 'revoke', '--account', accountId, '--key', keyId)).toMatchObject({ keyId, status: 'revoked' });
    expect(apiGateway.commandCalls(DeleteApiKeyCommand)[0]?.args[0].input).toEqual({ apiKey: 'gk-1' });
    const revoked = await record(keyId);
    expect(revoked).not.toHaveProperty('gatewayKeyId');
    expect(revoked).not.toHaveProperty('gatewayKeyValue');

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
    expect(await limiter.get(keySubjectId(keyId))).toMatchObject({ minuteLimit: 123, dayLimit: 4_567 });
    expect(await record(keyId)).toMatchObject({ plan: 'pro', gatewayKeyId: 'gk-1', gatewayKeyValue: 'generated-value-of-gk-1' });
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
    expect(await record(keyId)).toMatchObject({ plan: 'enterprise', limits: { perMinute: 777, perDay: 77_777 } });
    expect(await limiter.get(keySubjectId(keyId))).toMatchObject({ minuteLimit: 777, dayLimit: 77_777 });
  });

  it('keys backfill-usage-keys stores the value of records from before values were stored; a second run fills nothing', async () => {
    const accountId = (await json<{ accountId: string }>('accounts', 'create', '--name', 'Legacy', '--plan', 'pro')).accountId;
    const { keyId } = (await json<{ key: { keyId: string } }>('keys', 'create', '--account', accountId, '--name', 'old')).key;
    const old = await record(keyId);
    await keys.update(old.keyHash, { gatewayKeyValue: undefined });
    apiGateway.on(GetApiKeyCommand, { apiKey: old.gatewayKeyId, includeValue: true }).resolves({ id: old.gatewayKeyId, value: 'value-read-back' });

    expect(await json('keys', 'backfill-usage-keys', '--account', accountId)).toEqual({
      accountId,
      checked: 1,
      filled: [keyId],
      alreadyStored: 0,
      pooled: 0,
      revoked: 0,
      internalKeyMissing: [],
      changed: [],
    });
    expect(apiGateway.commandCalls(GetApiKeyCommand).map((c) => c.args[0].input)).toEqual([
      { apiKey: old.gatewayKeyId, includeValue: true },
    ]);
    expect(await record(keyId)).toEqual({ ...old, gatewayKeyValue: 'value-read-back' });

    expect(await json('keys', 'backfill-usage-keys', '--account', accountId)).toMatchObject({ filled: [], alreadyStored: 1 });
    expect(apiGateway.commandCalls(GetApiKeyCommand)).toHaveLength(1);
  });

  it('keys backfill-usage-keys without --account checks every account\'s keys; a gone internal key is named, not an error', async () => {
    const accountId = (await json<{ accountId: string }>('accounts', 'create', '--name', 'Gone', '--plan', 'business')).accountId;
    const { keyId } = (await json<{ key: { keyId: string } }>('keys', 'create', '--account', accountId, '--name', 'gone')).key;
    const gone = await record(keyId);
    await keys.update(gone.keyHash, { gatewayKeyValue: undefined });
    apiGateway.on(GetApiKeyCommand).rejects(new NotFoundException({ message: 'Invalid API Key identifier specified', $metadata: {} }));

    const result = await json<{ checked: number; filled: string[]; internalKeyMissing: string[] }>('keys', 'backfill-usage-keys');
    expect(result).not.toHaveProperty('accountId');
    expect(result.checked).toBe((await keys.listAll()).length);
    expect(result.internalKeyMissing).toEqual([keyId]);
    expect(result.filled).toEqual([]);
    expect(await record(keyId)).not.toHaveProperty('gatewayKeyValue');
  });
});
