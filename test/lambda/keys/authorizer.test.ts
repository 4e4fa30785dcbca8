import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateApiKey, hashApiKey } from '../../../lambda/keys/api-key-format.js';
import { DynamoDbKeyStore } from '../../../lambda/keys/dynamodb-key-store.js';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';
import { loadConfig } from '../../../lib/config/index.js';
import { ENV, HANDLER_ENTRIES } from '../../../contracts/messages.js';
import { createTables, LOCAL_AWS, LOCAL_TABLE_NAMES, type RunningService, startDynamoDb } from '../../../local/emulators.js';
import { localLambdaContext } from '../../../local/loopback.js';

// The deployed authorizer module (lambda/keys/authorizer.ts), as Lambda runs it: its whole module
// graph, and every request it sends, with DynamoDB on dynalite behind a recording proxy that is
// the only AWS endpoint it can reach (AWS_ENDPOINT_URL).

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const config = loadConfig();
const POOLED = {
  free: 'pooled0free0123456789abcdef',
  pro: 'pooled0pro0123456789abcdef',
  business: 'pooled0business0123456789abcdef',
  enterprise: 'pooled0enterprise0123456789abcdef',
  anonymous: 'pooled0anonymous0123456789abcdef',
};

/** One request the handler sent: the service its signature names, and the operation. */
interface Sent {
  readonly service: string | undefined;
  readonly target: string | undefined;
  readonly path: string | undefined;
}

let dynamodb: RunningService;
let proxy: Server;
const sent: Sent[] = [];

/** Forwards every request to dynalite unchanged, after writing down what it was. */
function startRecordingProxy(target: URL): Promise<string> {
  proxy = createServer((req, res) => {
    sent.push({
      service: /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//.exec(req.headers.authorization ?? '')?.[1],
      target: req.headers['x-amz-target'] as string | undefined,
      path: req.url,
    });
    const forward = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
  return new Promise((resolve) => {
    proxy.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`));
  });
}

type Handler = (event: APIGatewayRequestAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;
let handler: Handler;
const secrets: Record<'own' | 'pooled' | 'legacy', string> = { own: generateApiKey(), pooled: generateApiKey(), legacy: generateApiKey() };

beforeAll(async () => {
  dynamodb = await startDynamoDb();
  await createTables(dynamodb.endpoint);
  const documents = createDocumentClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint });
  const keys = new DynamoDbKeyStore(documents, LOCAL_TABLE_NAMES.apiKeys);
  const record = (secret: string, keyId: string) => ({
    keyHash: hashApiKey(secret),
    keyId,
    accountId: 'acct_1',
    name: 'k',
    prefix: secret.slice(0, 12),
    last4: secret.slice(-4),
    status: 'active' as const,
    plan: 'pro' as const,
    createdAt: '2026-11-21T00:00:00.000Z',
  });
  await keys.put({ ...record(secrets.own, 'key_own'), gatewayKeyId: 'gk1', gatewayKeyValue: 'ownvalue0123456789abcdef' });
  await keys.put(record(secrets.pooled, 'key_pooled'));
  await keys.put({ ...record(secrets.legacy, 'key_legacy'), gatewayKeyId: 'gk2' });

  const endpoint = await startRecordingProxy(new URL(dynamodb.endpoint));
  vi.stubEnv('AWS_ENDPOINT_URL', endpoint);
  vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', '');
  vi.stubEnv('AWS_REGION', 'eu-west-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
  vi.stubEnv(ENV.apiKeysTable, LOCAL_TABLE_NAMES.apiKeys);
  vi.stubEnv(ENV.limitsConfig, JSON.stringify({ plans: config.plans, anonymous: config.anonymous }));
  vi.stubEnv(ENV.keyCacheSeconds, '0');
  vi.stubEnv(ENV.pooledUsageKeys, JSON.stringify(POOLED));
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'ERROR');
  vi.resetModules();
  ({ handler } = (await import('../../../lambda/keys/authorizer.js')) as unknown as { handler: Handler });
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await dynamodb?.stop();
});

const invoke = (authorization?: string) =>
  handler(
    {
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/POST/messages',
      headers: authorization === undefined ? {} : { Authorization: authorization },
    } as unknown as APIGatewayRequestAuthorizerEvent,
    localLambdaContext('authorizer', 'req-1', 10_000),
  );

describe('the authorizer Lambda module: no management-plane call on the request path', () => {
  it('answers every kind of caller with one DynamoDB GetItem per key lookup and no other request', async () => {
    sent.length = 0;
    const answers = [
      await invoke(),
      await invoke(`Bearer ${generateApiKey()}`),
      await invoke(`Bearer ${secrets.own}`),
      await invoke(`Bearer ${secrets.pooled}`),
      await invoke(`Bearer ${secrets.legacy}`),
    ];
    expect(answers.map((a) => [a.principalId, a.usageIdentifierKey])).toEqual([
      ['anonymous', POOLED.anonymous],
      ['anonymous', POOLED.anonymous],
      ['key_own', 'ownvalue0123456789abcdef'],
      ['key_pooled', POOLED.pro],
      ['key_legacy', POOLED.pro],
    ]);
    // Four key lookups (the caller without a header needs none), each one GetItem, all to DynamoDB.
    expect(sent).toEqual(Array.from({ length: 4 }, () => ({ service: 'dynamodb', target: 'DynamoDB_20120810.GetItem', path: '/' })));
  });

  it('has no API Gateway client in its module graph', async () => {
    const result = await build({
      absWorkingDir: REPO_ROOT,
      entryPoints: [HANDLER_ENTRIES.authorizer],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs).toContain(HANDLER_ENTRIES.authorizer);
    expect(inputs).toContain('lambda/keys/dynamodb-key-store.ts');
    expect(inputs.filter((path) => /api-gateway|apigateway/i.test(path))).toEqual([]);
  });
});
