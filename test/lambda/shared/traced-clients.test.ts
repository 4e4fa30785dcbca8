/**
 * Every AWS SDK client a Lambda handler module creates is wrapped by Tracer's captureAWSv3Client:
 * each handler module the constructs deploy is imported as on Lambda (tracing on, its environment
 * set), every client constructed meanwhile is recorded, and each must carry the X-Ray middleware.
 */
import type * as TracerMiddleware from '@aws-lambda-powertools/tracer/middleware';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const created = vi.hoisted(() => {
  const clients: Array<{ name: string; client: { middlewareStack: { identify(): string[] } } }> = [];
  /** The module with its client class replaced by a subclass that records each instance. */
  const recording = async (load: () => Promise<Record<string, unknown>>, name: string) => {
    const actual = await load();
    const Base = actual[name] as new (...args: unknown[]) => { middlewareStack: { identify(): string[] } };
    const Recorded = class extends Base {
      constructor(...args: unknown[]) {
        super(...args);
        clients.push({ name, client: this });
      }
    };
    return { ...actual, [name]: Recorded };
  };
  /** How many handlers were given Tracer's middleware (captureLambdaHandler calls). */
  const tracedHandlers = { count: 0 };
  return { clients, recording, tracedHandlers };
});

vi.mock('@aws-sdk/client-dynamodb', (load) => created.recording(load, 'DynamoDBClient'));
vi.mock('@aws-sdk/client-sqs', (load) => created.recording(load, 'SQSClient'));
vi.mock('@aws-sdk/client-api-gateway', (load) => created.recording(load, 'APIGatewayClient'));
vi.mock('@aws-sdk/client-cloudfront', (load) => created.recording(load, 'CloudFrontClient'));
vi.mock('@aws-sdk/client-cloudfront-keyvaluestore', (load) => created.recording(load, 'CloudFrontKeyValueStoreClient'));
vi.mock('@aws-sdk/client-acm', (load) => created.recording(load, 'ACMClient'));
vi.mock('@aws-sdk/client-s3', (load) => created.recording(load, 'S3Client'));
vi.mock('@aws-sdk/client-sfn', (load) => created.recording(load, 'SFNClient'));
vi.mock('@aws-lambda-powertools/tracer/middleware', async (load) => {
  const actual = await load<typeof TracerMiddleware>();
  return {
    ...actual,
    captureLambdaHandler: (...args: Parameters<typeof actual.captureLambdaHandler>) => {
      created.tracedHandlers.count++;
      return actual.captureLambdaHandler(...args);
    },
  };
});

const { loadConfig, runtimeConfig } = await import('../../../lib/config/index.js');
const { CONTROL_ENV, CONTROL_API_HANDLER } = await import('../../../contracts/control-api.js');
const { DOMAIN_ENV, DOMAIN_HANDLERS } = await import('../../../contracts/domains.js');
const { ENV, HANDLER_ENTRIES } = await import('../../../contracts/messages.js');
const { WEBHOOK_ENV, WEBHOOK_HANDLER_ENTRIES } = await import('../../../contracts/webhooks.js');

/** Every module a PlatformFunction deploys, with its exported handlers, from the contracts the constructs use. */
const HANDLER_MODULES: ReadonlyArray<readonly [entry: string, handlers: readonly string[]]> = [
  ...Object.values(HANDLER_ENTRIES).map((entry) => [entry, ['handler']] as const),
  [CONTROL_API_HANDLER.entry, [CONTROL_API_HANDLER.handler]],
  ...Object.values(WEBHOOK_HANDLER_ENTRIES).map((entry) => [entry, ['handler']] as const),
  // Every domain function, those added later included: one handler or a map of them per entry.
  ...Object.values(DOMAIN_HANDLERS).map((spec) => {
    const { entry, handler, handlers } = spec as { entry: string; handler?: string; handlers?: Record<string, string> };
    return [entry, handlers ? Object.values(handlers) : [handler as string]] as const;
  }),
];

const XRAY = 'XRaySDKInstrumentation';

beforeAll(() => {
  const config = loadConfig();
  const json: Record<string, string> = {
    [ENV.limitsConfig]: JSON.stringify({ plans: config.plans, anonymous: config.anonymous }),
    [ENV.messagesConfig]: JSON.stringify(config.messages),
    [ENV.pooledUsageKeys]: JSON.stringify({ free: 'v1', pro: 'v2', business: 'v3', enterprise: 'v4', anonymous: 'v5' }),
    [ENV.keyCacheSeconds]: '30',
    [CONTROL_ENV.platformConfig]: JSON.stringify(runtimeConfig(config)),
    [CONTROL_ENV.usagePlanIds]: JSON.stringify({ free: 'up1', pro: 'up2', business: 'up3' }),
  };
  const names = [ENV, CONTROL_ENV, DOMAIN_ENV, WEBHOOK_ENV].flatMap((names) => Object.values(names) as string[]);
  for (const name of names) {
    vi.stubEnv(name, json[name] ?? `dummy-${name.toLowerCase()}`);
  }
  vi.stubEnv(DOMAIN_ENV.keyValueStoreArn, 'arn:aws:cloudfront::123456789012:key-value-store/kvs-1');
  vi.stubEnv(DOMAIN_ENV.dnsServers, '');
  vi.stubEnv(DOMAIN_ENV.driftGraceSeconds, '259200');
  // As on Lambda with active tracing; without patching this test process's http and fetch.
  vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs22.x');
  vi.stubEnv('POWERTOOLS_TRACE_ENABLED', 'true');
  vi.stubEnv('POWERTOOLS_TRACER_CAPTURE_HTTPS_REQUESTS', 'false');
  vi.stubEnv('AWS_REGION', 'eu-west-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
});

afterAll(() => {
  vi.unstubAllEnvs();
});

describe('Tracer on every AWS SDK client of the Lambdas', () => {
  it.each(HANDLER_MODULES)('%s: every client it creates carries the X-Ray middleware, every handler Tracer\'s', async (entry, handlers) => {
    // A fresh module graph, as in the function's own bundle: module-scoped clients are built again.
    vi.resetModules();
    const before = created.clients.length;
    const tracedBefore = created.tracedHandlers.count;
    const module = (await import(/* @vite-ignore */ new URL(`../../../${entry}`, import.meta.url).href)) as Record<string, unknown>;
    const clients = created.clients.slice(before);
    expect(clients.length).toBeGreaterThan(0);
    for (const { name, client } of clients) {
      expect(client.middlewareStack.identify().some((m) => m.startsWith(XRAY)), `${entry}: ${name}`).toBe(true);
    }
    for (const handler of handlers) expect(typeof module[handler], `${entry} exports ${handler}`).toBe('function');
    expect(created.tracedHandlers.count - tracedBefore).toBeGreaterThanOrEqual(handlers.length);
  });

  it('covers every kind of client the handlers use, the document client included', async () => {
    expect(new Set(created.clients.map((c) => c.name))).toEqual(
      new Set([
        'DynamoDBClient',
        'SQSClient',
        'APIGatewayClient',
        'CloudFrontClient',
        'CloudFrontKeyValueStoreClient',
        'ACMClient',
        'S3Client',
        'SFNClient',
      ]),
    );
    const { createDocumentClient } = await import('../../../lambda/shared/dynamodb.js');
    expect(createDocumentClient().middlewareStack.identify().some((m) => m.startsWith(XRAY))).toBe(true);
  });

  it('would catch a client created without traced()', async () => {
    const { SQSClient } = await import('@aws-sdk/client-sqs');
    const bare = new SQSClient({});
    expect(bare.middlewareStack.identify().some((m) => m.startsWith(XRAY))).toBe(false);
  });
});
