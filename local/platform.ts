import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
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
  createSendRoutesHandler,
} from '../lambda/messages/http-handlers.js';
import type { MessageRecord } from '../lambda/messages/message.js';
import { SqsMessageQueue } from '../lambda/messages/sqs-message-queue.js';
import { createWorkerHandler } from '../lambda/messages/worker.js';
import { DynamoDbLimiterStore } from '../lambda/rate-limits/dynamodb-limiter-store.js';
import { RateLimiter } from '../lambda/rate-limits/rate-limiter.js';
import { type Clock, systemClock } from '../lambda/shared/clock.js';
import { DATA_PLANE, traced } from '../lambda/shared/aws-clients.js';
import { createDocumentClient } from '../lambda/shared/dynamodb.js';
import { loadConfig, PLAN_IDS, type PlanId, type PlatformConfig } from '../lib/config/index.js';
import { startLocalApiGateway } from './api-gateway.js';
import { LocalFirewall } from './firewall.js';
import {
  createQueues,
  createTables,
  LOCAL_AWS,
  LOCAL_TABLE_NAMES,
  type RunningService,
  startDynamoDb,
  startSqs,
} from './emulators.js';
import type { DomainService } from '../lambda/domains/domain-service.js';
import type { ProjectRecord } from '../lambda/projects/project.js';
import type { ProjectService } from '../lambda/projects/project-service.js';
import { ControlApi } from '../lambda/control/control-api.js';
import { createControlApiHandler } from '../lambda/control/http-handlers.js';
import { DynamoDbOwnerStore, OwnerDirectory } from '../lambda/control/owners.js';
import { startControlApi } from './control-api.js';
import { DASHBOARD_DIST_DIR, type DemoOwner, DevSignIn, startLocalDashboard } from './dashboard.js';
import type { LocalDomainFlow } from './domain-flow.js';
import { createLocalDomains, type LocalDomainsOptions } from './domains.js';
import { type LocalEdgeRouter, restoreEdge, type SimulatedCertificateAuthority, startLocalEdge } from './edge.js';
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
  /** Edge port on 127.0.0.1: projects served by Host header. 0 picks a free one. @default 8080 */
  readonly edgePort?: number;
  /** DNS servers (host:port) for the domain checks. @default the system resolver */
  readonly dnsServers?: readonly string[];
  /**
   * Domain flow timing: the wait between certificate checks, the watchdog, and the wait between
   * rounds of a tenant release; how many times the simulated CloudFront refuses to delete a
   * released tenant (its disable still deploying); and how often the drift check runs by itself
   * (0: never, only when asked). @default 1 s, 30 min, pollMs, 1, config.domains.driftCheck.intervalMinutes
   */
  readonly domainFlow?: LocalDomainsOptions['domainFlow'];
  /** Where deployed files are kept. @default <dataDir>/sites, or a temporary directory */
  readonly sitesDir?: string;
  /**
   * Serve the dashboard on 127.0.0.1 (the built app, its API through the control API's Lambda
   * handler, the development sign-in). Port 0 picks a free one. @default not served
   */
  readonly dashboard?: { readonly port?: number; readonly distDir?: string };
  /** Give the Pro demo account a deployed demo project (`demo`), as `npm start` does. @default false */
  readonly demoProject?: boolean;
}

export interface LocalPlatform {
  readonly baseUrl: string;
  /** The control-plane HTTP API (loopback, no authentication locally). */
  readonly controlUrl: string;
  /** The local edge: serves projects by Host header. */
  readonly edgeUrl: string;
  /** The dashboard, when the `dashboard` option asked for it. */
  readonly dashboardUrl: string | undefined;
  /** Demo owners of the development sign-in (`<plan>@demo.local`), linked to the demo accounts. */
  readonly demoOwners: readonly DemoOwner[];
  /** The control-plane API the control port and the dashboard answer through. */
  readonly controlApi: ControlApi;
  /** The name customers point their CNAME/ALIAS at. */
  readonly platformHost: string;
  readonly projects: ProjectService;
  readonly domains: DomainService;
  readonly domainFlow: LocalDomainFlow;
  /** The local edge's KeyValueStore (values, version, size). */
  readonly edge: LocalEdgeRouter;
  /** The simulated tenants and certificates. */
  readonly certificates: SimulatedCertificateAuthority;
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
  /** Brings SQS back after `stopQueueService`, on the same port, with the same queues and messages. */
  restartQueueService(): Promise<void>;
  /**
   * The documented DLQ redrive, locally (fauxqs has no StartMessageMoveTask): moves every message
   * of the DLQ back to the queue, with its body and attributes. Returns how many were moved.
   */
  redriveDeadLetters(): Promise<number>;
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
    // The send function's client, as the Lambda builds it; another for what only the local platform
    // does (long polls, redrive), without the request path's 5 s attempt timeout.
    const queueClient = traced(new SQSClient({ ...DATA_PLANE, ...LOCAL_AWS, endpoint: sqs.endpoint }));
    const sqsClient = new SQSClient({ ...LOCAL_AWS, endpoint: sqs.endpoint });
    const limiterStore = new DynamoDbLimiterStore(documentClient, LOCAL_TABLE_NAMES.rateLimits);
    const limiter = new RateLimiter(limiterStore, clock);
    const messages = new DynamoDbMessageStore(documentClient, LOCAL_TABLE_NAMES.messages);
    const keys = new DynamoDbKeyStore(documentClient, LOCAL_TABLE_NAMES.apiKeys);
    const accounts = new DynamoDbAccountStore(documentClient, LOCAL_TABLE_NAMES.accounts);
    const queue = new SqsMessageQueue(queueClient, queues.queueUrl);

    // Usage plans and internal keys as on API Gateway: the backstop the front applies.
    const usagePlans = new UsagePlans(clock);
    const gateway = new LocalUsagePlanGateway(usagePlans, config);
    const controlPlane = new ControlPlane({ accounts, keys, limiter: limiterStore, gateway, clock, config });

    const authorizer = createAuthorizerHandler({
      keys,
      pooledUsageKeys: gateway.pooledUsageKeys(),
      limits: { plans: config.plans, anonymous: config.anonymous },
      clock,
      keyCacheSeconds: config.auth.keyCacheSeconds,
    });
    const send = createSendRoutesHandler({
      limiter,
      messages,
      queue,
      idempotency: new DynamoDbIdempotencyStore(documentClient, LOCAL_TABLE_NAMES.idempotency),
      clock,
      config: config.messages,
      anonymousLimits: config.anonymous,
    });
    const api = await startLocalApiGateway({
      port: options.port ?? 3000,
      authorizer,
      usagePlans,
      firewall: new LocalFirewall(config.protection.waf, clock),
      routes: [
        // One send function for both POST routes, as on AWS.
        ...['/messages', '/messages/batch'].map((resource) => ({ method: 'POST', resource, handler: send })),
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
      gateway.restore(storedAccounts, storedKeys);
    }

    // Projects, deploys and custom domains.
    const local = createLocalDomains({
      documentClient,
      accounts,
      clock,
      config,
      ...(options.dnsServers ? { dnsServers: options.dnsServers } : {}),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(options.sitesDir ? { sitesDir: options.sitesDir } : {}),
      ...(options.domainFlow ? { domainFlow: options.domainFlow } : {}),
    });
    const { platformHost, storage, edge, certificates, domainStore, domainFlow, projects, domains } = local;
    services.push({ endpoint: 'domain-flow', stop: local.stop });
    if (options.dataDir) {
      const stored = (await scanAll(documentClient, LOCAL_TABLE_NAMES.projects)) as ProjectRecord[];
      await restoreEdge(edge, stored, domainStore, config.platform.domain);
    }
    const edgeServer = await startLocalEdge({ port: options.edgePort ?? 8080, router: edge, storage });
    services.push({ endpoint: edgeServer.url, stop: edgeServer.stop });

    const ownerStore = new DynamoDbOwnerStore(documentClient, LOCAL_TABLE_NAMES.owners);
    const owners = new OwnerDirectory({ store: ownerStore, controlPlane, clock });
    const controlApi = new ControlApi({ controlPlane, projects, domains, owners, config });
    const control = await startControlApi(controlApi, options.controlPort ?? 3001);
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

    // Development sign-in: <plan>@demo.local owns the demo account of that plan.
    const demoOwners = PLAN_IDS.map((plan) => ({ email: `${plan}@demo.local`, plan }));
    for (const owner of demoOwners) {
      await ownerStore.link({
        ownerId: DevSignIn.ownerIdOf(owner.email),
        accountId: `acct_demo_${owner.plan}`,
        email: owner.email,
        createdAt: new Date(clock.now()).toISOString(),
      });
    }
    if (options.demoProject) await deployDemoProject(projects, 'acct_demo_pro');

    let dashboardUrl: string | undefined;
    if (options.dashboard) {
      const dashboard = await startLocalDashboard({
        port: options.dashboard.port ?? 3002,
        distDir: options.dashboard.distDir ?? DASHBOARD_DIST_DIR,
        handler: createControlApiHandler(controlApi),
        messagesApiUrl: api.url,
        platformDomain: config.platform.domain,
        demoOwners,
      });
      services.push({ endpoint: dashboard.url, stop: dashboard.stop });
      dashboardUrl = dashboard.url;
    }

    return {
      baseUrl: api.url,
      controlUrl: control.url,
      edgeUrl: edgeServer.url,
      dashboardUrl,
      demoOwners,
      controlApi,
      platformHost,
      projects,
      domains,
      domainFlow,
      edge,
      certificates,
      controlPlane,
      demoKeys,
      demoAccounts,
      config,
      clock,
      endpoints: { dynamodb: dynamodb.endpoint, sqs: sqs.endpoint },
      tables: LOCAL_TABLE_NAMES,
      queues,
      worker,
      stopQueueService: () => sqs.pause(),
      restartQueueService: () => sqs.resume(),
      redriveDeadLetters: () => redrive(sqsClient, queues.deadLetterQueueUrl, queues.queueUrl),
      stopDatabaseService: () => dynamodb.stop(),
      issueKey: async (account, name) => (await controlPlane.createKey(account.accountId, name)).secret,
      stop: async () => {
        await stopAll();
        documentClient.destroy();
        sqsClient.destroy();
        queueClient.destroy();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** A small site for the Pro demo account, deployed once (kept with --data). */
async function deployDemoProject(projects: ProjectService, accountId: string): Promise<void> {
  const existing = (await projects.listProjects(accountId)).find((p) => p.slug === 'demo');
  if (existing?.liveDeployId) return;
  const project = existing ?? (await projects.createProject(accountId, { slug: 'demo', name: 'Demo site' }));
  const html = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Demo site</title></head>' +
    '<body><h1>Demo site</h1><p>Deployed by the local platform for the Pro demo account.</p></body></html>\n';
  await projects.deploy(accountId, project.projectId, [{ path: 'index.html', body: Buffer.from(html) }]);
}

async function scanAll(client: DynamoDBDocumentClient, tableName: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

async function requeueStranded(client: DynamoDBDocumentClient, queue: SqsMessageQueue): Promise<void> {
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

/** Receive from the DLQ, send to the queue (same body and attributes), delete from the DLQ, until empty. */
async function redrive(sqs: SQSClient, from: string, to: string): Promise<number> {
  let moved = 0;
  for (;;) {
    const { Messages: messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: from,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 30,
        MessageAttributeNames: ['All'],
      }),
    );
    if (messages.length === 0) return moved;
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: to,
        Entries: messages.map((m, i) => ({
          Id: String(i),
          MessageBody: m.Body ?? '',
          ...(m.MessageAttributes ? { MessageAttributes: m.MessageAttributes } : {}),
        })),
      }),
    );
    // Only what reached the queue leaves the DLQ; a failed entry stays for the next pass.
    const ok = new Set((sent.Successful ?? []).map((e) => e.Id));
    const done = messages.filter((_, i) => ok.has(String(i)));
    if (done.length > 0) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: from,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle as string })),
        }),
      );
    }
    moved += done.length;
    if (done.length < messages.length) throw new Error(`redrive: ${messages.length - done.length} messages not sent`);
  }
}
