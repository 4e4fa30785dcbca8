import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { type AccountRecord, DynamoDbAccountStore } from '../lambda/keys/accounts.js';
import type { ApiKeyRecord } from '../lambda/keys/key-store.js';
import { type AccountView, ControlPlane } from '../lambda/keys/control-plane.js';
import { createAuthorizerHandler } from '../lambda/keys/authorizer-handler.js';
import { DynamoDbKeyStore } from '../lambda/keys/dynamodb-key-store.js';
import { DynamoDbIdempotencyStore } from '../lambda/messages/dynamodb-idempotency-store.js';
import { DynamoDbMessageStore } from '../lambda/messages/dynamodb-message-store.js';
import {
  createFallbackHandler,
  createGetMessageHandler,
  createSendMessageHandler,
} from '../lambda/messages/http-handlers.js';
import type { MessageRecord } from '../lambda/messages/message.js';
import { SqsMessageQueue } from '../lambda/messages/sqs-message-queue.js';
import { createWorkerHandler } from '../lambda/messages/worker.js';
import { DynamoDbLimiterStore } from '../lambda/rate-limits/dynamodb-limiter-store.js';
import { RateLimiter } from '../lambda/rate-limits/rate-limiter.js';
import { type Clock, systemClock } from '../lambda/shared/clock.js';
import { createDocumentClient } from '../lambda/shared/dynamodb.js';
import { loadConfig, PLAN_IDS, type PlanId, type PlatformConfig } from '../lib/config/index.js';
import { startLocalApiGateway } from './api-gateway.js';
import {
  createQueues,
  createTables,
  LOCAL_AWS,
  LOCAL_TABLE_NAMES,
  type RunningService,
  startDynamoDb,
  startSqs,
} from './emulators.js';
import { startControlApi } from './control-api.js';
import { QueuePoller } from './queue-poller.js';
import { LocalUsagePlanGateway, UsagePlans } from './usage-plans.js';

export interface LocalPlatformOptions {
  /** API port on 127.0.0.1; 0 picks a free one. @default 3000 */
  readonly port?: number;
  /** Control-plane API port on 127.0.0.1 (accounts, keys, plans); 0 picks a free one. @default 3001 */
  readonly controlPort?: number;
  /** Persist DynamoDB state here (LevelDB). @default in memory */
  readonly dataDir?: string;
  /** Time source of the handlers and usage plans. @default the system clock */
  readonly clock?: Clock;
  /** @default the platform config with no overrides */
  readonly config?: PlatformConfig;
  /** Visibility timeout of the local queue; short so retries and dead-lettering take seconds. @default 2 */
  readonly visibilityTimeoutSeconds?: number;
  /** Run the queue worker. @default true */
  readonly worker?: boolean;
}

export interface LocalPlatform {
  readonly baseUrl: string;
  /** The control-plane HTTP API (loopback, no authentication locally). */
  readonly controlUrl: string;
  /** The same control plane, in process. */
  readonly controlPlane: ControlPlane;
  /** A fresh demo key per plan, issued at start; shown here once. */
  readonly demoKeys: Readonly<Record<PlanId, string>>;
  readonly demoAccounts: Readonly<Record<PlanId, AccountView>>;
  readonly config: PlatformConfig;
  readonly clock: Clock;
  readonly endpoints: { readonly dynamodb: string; readonly sqs: string };
  readonly tables: typeof LOCAL_TABLE_NAMES;
  readonly queues: { readonly queueUrl: string; readonly deadLetterQueueUrl: string };
  readonly worker: QueuePoller | undefined;
  /** Fault injection for tests: stops the SQS emulator, as if SQS were unavailable. */
  stopQueueService(): Promise<void>;
  /** Fault injection for tests: stops the DynamoDB emulator, as if DynamoDB were unavailable. */
  stopDatabaseService(): Promise<void>;
  /** Issues another key for an account through the control plane; returns the secret. */
  issueKey(account: { accountId: string }, name: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * The whole Messages API on loopback, with the handler modules the stacks deploy: dynalite for
 * DynamoDB, fauxqs for SQS, an API Gateway front (authorizer → usage plans → Lambda proxy) and
 * the queue worker.
 */
export async function startLocalPlatform(options: LocalPlatformOptions = {}): Promise<LocalPlatform> {
  const config = options.config ?? loadConfig();
  const clock = options.clock ?? systemClock;
  const services: RunningService[] = [];
  const stopAll = async () => {
    for (const service of services.reverse()) await service.stop().catch(() => {});
  };

  try {
    if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
    const dynamodb = await startDynamoDb(options.dataDir ? { path: join(options.dataDir, 'dynamodb') } : {});
    services.push(dynamodb);
    const sqs = await startSqs();
    services.push(sqs);
    await createTables(dynamodb.endpoint);
    const queues = await createQueues(sqs.endpoint, {
      maxReceiveCount: config.messages.maxReceiveCount,
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 2,
    });

    const documentClient = createDocumentClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint });
    const sqsClient = new SQSClient({ ...LOCAL_AWS, endpoint: sqs.endpoint });
    const limiterStore = new DynamoDbLimiterStore(documentClient, LOCAL_TABLE_NAMES.rateLimits);
    const limiter = new RateLimiter(limiterStore, clock);
    const messages = new DynamoDbMessageStore(documentClient, LOCAL_TABLE_NAMES.messages);
    const keys = new DynamoDbKeyStore(documentClient, LOCAL_TABLE_NAMES.apiKeys);
    const accounts = new DynamoDbAccountStore(documentClient, LOCAL_TABLE_NAMES.accounts);
    const queue = new SqsMessageQueue(sqsClient, queues.queueUrl);

    // Usage plans and internal keys as on API Gateway: the backstop the front applies.
    const usagePlans = new UsagePlans(clock);
    const gateway = new LocalUsagePlanGateway(usagePlans, config);
    const controlPlane = new ControlPlane({ accounts, keys, limiter: limiterStore, gateway, clock, config });

    const authorizer = createAuthorizerHandler({
      keys,
      usageIdentifiers: gateway,
      limits: { plans: config.plans, anonymous: config.anonymous },
      clock,
      keyCacheSeconds: config.auth.keyCacheSeconds,
    });
    const api = await startLocalApiGateway({
      port: options.port ?? 3000,
      authorizer,
      usagePlans,
      routes: [
        {
          method: 'POST',
          resource: '/messages',
          handler: createSendMessageHandler({
            limiter,
            messages,
            queue,
            idempotency: new DynamoDbIdempotencyStore(documentClient, LOCAL_TABLE_NAMES.idempotency),
            clock,
            config: config.messages,
            anonymousLimits: config.anonymous,
          }),
        },
        {
          method: 'GET',
          resource: '/messages/{id}',
          handler: createGetMessageHandler({ limiter, messages, anonymousLimits: config.anonymous }),
        },
      ],
      fallback: createFallbackHandler({ limiter, anonymousLimits: config.anonymous }),
    });
    services.push({ endpoint: api.url, stop: api.stop });

    let worker: QueuePoller | undefined;
    if (options.worker ?? true) {
      const queueArn = (
        await sqsClient.send(new GetQueueAttributesCommand({ QueueUrl: queues.queueUrl, AttributeNames: ['QueueArn'] }))
      ).Attributes?.QueueArn as string;
      worker = new QueuePoller(
        sqsClient,
        queues.queueUrl,
        queueArn,
        createWorkerHandler({ messages, clock, maxReceiveCount: config.messages.maxReceiveCount }),
      );
      worker.start();
      const poller = worker;
      services.push({ endpoint: 'worker', stop: () => poller.stop() });
    }

    // The queue and usage plans are in memory: with --data, envelopes of messages still queued
    // are put back, and the usage-plan bindings of stored accounts and keys are rebuilt.
    if (options.dataDir) {
      await requeueStranded(documentClient, queue);
      const storedAccounts = (await scanAll(documentClient, LOCAL_TABLE_NAMES.accounts)) as AccountRecord[];
      const storedKeys = (await scanAll(documentClient, LOCAL_TABLE_NAMES.apiKeys)) as ApiKeyRecord[];
      const usagePlanOf = new Map(
        storedAccounts.map((a) => [a.accountId, a.plan === 'enterprise' ? a.gatewayUsagePlanId : a.plan]),
      );
      gateway.restore(storedAccounts, storedKeys, (accountId) => usagePlanOf.get(accountId));
    }

    const control = await startControlApi(controlPlane, options.controlPort ?? 3001);
    services.push({ endpoint: control.url, stop: control.stop });

    // Demo accounts, one per plan, and a fresh key each: through the control plane, like any key.
    const demoAccounts = {} as Record<PlanId, AccountView>;
    const demoKeys = {} as Record<PlanId, string>;
    for (const plan of PLAN_IDS) {
      const accountId = `acct_demo_${plan}`;
      const existing = await accounts.get(accountId);
      demoAccounts[plan] = existing
        ? await controlPlane.getAccount(accountId)
        : await controlPlane.createAccount({ accountId, name: `Demo ${config.plans[plan].displayName}`, plan });
      demoKeys[plan] = (await controlPlane.createKey(accountId, 'demo key')).secret;
    }

    return {
      baseUrl: api.url,
      controlUrl: control.url,
      controlPlane,
      demoKeys,
      demoAccounts,
      config,
      clock,
      endpoints: { dynamodb: dynamodb.endpoint, sqs: sqs.endpoint },
      tables: LOCAL_TABLE_NAMES,
      queues,
      worker,
      stopQueueService: () => sqs.stop(),
      stopDatabaseService: () => dynamodb.stop(),
      issueKey: async (account, name) => (await controlPlane.createKey(account.accountId, name)).secret,
      stop: async () => {
        await stopAll();
        documentClient.destroy();
        sqsClient.destroy();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function scanAll(client: ReturnType<typeof createDocumentClient>, tableName: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

async function requeueStranded(client: ReturnType<typeof createDocumentClient>, queue: SqsMessageQueue): Promise<void> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: LOCAL_TABLE_NAMES.messages,
        FilterExpression: '#status = :queued',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':queued': 'queued' },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of (page.Items ?? []) as MessageRecord[]) {
      await queue.send({ v: 1, id: item.id, accountId: item.accountId, createdAt: item.createdAt });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
