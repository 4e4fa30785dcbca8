import type { ControlServices } from '../lambda/control/control-router.js';
import type { DomainService } from '../lambda/domains/domain-service.js';
import type { AccountView, AccountService } from '../lambda/keys/account-service.js';
import type { DeployService } from '../lambda/projects/deploy-service.js';
import type { ProjectService } from '../lambda/projects/project-service.js';
import { type Clock, systemClock } from '../lambda/shared/clock.js';
import { loadConfig, type PlanId, type PlatformConfig } from '../lib/config/index.js';
import type { RetryBackoff } from '../contracts/messages.js';
import type { MessageOutcomes } from '../lambda/messages/ports.js';
import type { ProcessMessage } from '../lambda/messages/processor.js';
import type { DemoOwner } from './dashboard.js';
import type { LocalDomainFlow } from './domain-flow.js';
import type { LocalDomainsOptions } from './domains.js';
import type { LocalEdgeRouter, SimulatedCertificateAuthority } from './edge.js';
import type { UsagePlans } from './usage-plans.js';
import { LOCAL_TABLE_NAMES, type RunningService } from './emulators.js';
import type { QueuePoller } from './queue-poller.js';
import { startBackingServices } from './wiring/backing-services.js';
import { startControl } from './wiring/control-api.js';
import { startDashboard } from './wiring/dashboard.js';
import { deployDemoProject, startDomains } from './wiring/domains.js';
import { seedDemoAccounts, wireKeys } from './wiring/keys.js';
import { startMessages } from './wiring/messages.js';
import { type LocalWebhookOptions, startWebhooks } from './wiring/webhooks.js';

export interface LocalPlatformOptions {
  /** API port on 127.0.0.1; 0 picks a free one. @default 3000 */
  readonly port?: number;
  /** Control API port on 127.0.0.1 (accounts, keys, plans); 0 picks a free one. @default 3001 */
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
  /** Tests: puts something between the functions and dynalite (a slowed proxy); answers its endpoint. */
  readonly dynamoDbFront?: (endpoint: string) => Promise<string>;
  /** The operator's processor the worker runs (`npm start -- --processor FILE`). @default accepts every message */
  readonly processor?: ProcessMessage;
  /** The wait between a message's attempts; short, like the visibility timeout. @default 1 s doubling up to 4 s */
  readonly retryBackoff?: RetryBackoff;
  /** Told of every message's final outcome (webhooks). @default nobody */
  readonly messageOutcomes?: MessageOutcomes;
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
  /** Where s3rver keeps the site bucket (deployed files). @default <dataDir>/sites, or a temporary directory */
  readonly sitesDir?: string;
  /**
   * Serve the dashboard on 127.0.0.1 (the built app, its API through the control API's Lambda
   * handler, the development sign-in). Port 0 picks a free one. @default not served
   */
  readonly dashboard?: { readonly port?: number; readonly distDir?: string };
  /** Give the Pro demo account a deployed demo project (`demo`), as `npm start` does. @default false */
  readonly demoProject?: boolean;
  /** Webhook delivery timing (tests shorten the hops and the attempt timeout). @default as on AWS */
  readonly webhooks?: LocalWebhookOptions;
}

export interface LocalPlatform {
  readonly baseUrl: string;
  /** The control API (loopback, no authentication locally). */
  readonly controlUrl: string;
  /** The local edge: serves projects by Host header. */
  readonly edgeUrl: string;
  /** The dashboard, when the `dashboard` option asked for it. */
  readonly dashboardUrl: string | undefined;
  /** Demo owners of the development sign-in (`<plan>@demo.local`), linked to the demo accounts. */
  readonly demoOwners: readonly DemoOwner[];
  /** The services the control port and the dashboard answer through. */
  readonly controlServices: ControlServices;
  /** The name customers point their CNAME/ALIAS at. */
  readonly platformHost: string;
  readonly projects: ProjectService;
  readonly deploys: DeployService;
  readonly domains: DomainService;
  readonly domainFlow: LocalDomainFlow;
  /** The local edge's KeyValueStore (values, version, size). */
  readonly edge: LocalEdgeRouter;
  /** The simulated tenants and certificates. */
  readonly certificates: SimulatedCertificateAuthority;
  /** The same account service, in process. */
  readonly accountService: AccountService;
  /** The usage plans and API keys, as API Gateway would hold them (what the environment teardown removes). */
  readonly usagePlans: UsagePlans;
  /** A fresh demo key per plan, issued at start; shown here once. */
  readonly demoKeys: Readonly<Record<PlanId, string>>;
  readonly demoAccounts: Readonly<Record<PlanId, AccountView>>;
  readonly config: PlatformConfig;
  readonly clock: Clock;
  readonly endpoints: { readonly dynamodb: string; readonly sqs: string; readonly s3: string };
  readonly tables: typeof LOCAL_TABLE_NAMES;
  readonly queues: { readonly queueUrl: string; readonly deadLetterQueueUrl: string };
  readonly worker: QueuePoller | undefined;
  /** Owners' webhook endpoints, their deliveries, and the worker's outcomes that feed them. */
  readonly webhooks: Awaited<ReturnType<typeof startWebhooks>>;
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
  /** Issues another key for an account through the account service; returns the secret. */
  issueKey(account: { accountId: string }, name: string): Promise<string>;
  stop(): Promise<void>;
}

/** Seconds, not minutes: a retried message comes back while you watch (AWS: RETRY_BACKOFF). */
const LOCAL_RETRY_BACKOFF: RetryBackoff = { baseSeconds: 1, maxSeconds: 4 };

/**
 * The whole Messages API on loopback, with the handler modules the stacks deploy: dynalite for
 * DynamoDB, fauxqs for SQS, an API Gateway front (authorizer → usage plans → Lambda proxy) and
 * the queue worker; projects and custom domains with the local edge; the control API and,
 * when asked, the dashboard. Each capability is wired in local/wiring/.
 */
export async function startLocalPlatform(options: LocalPlatformOptions = {}): Promise<LocalPlatform> {
  const config = options.config ?? loadConfig();
  const clock = options.clock ?? systemClock;
  // Every running part, in start order; stopped in reverse, also when the start fails half-way.
  const services: RunningService[] = [];
  const stopAll = async () => {
    for (const service of services.reverse()) await service.stop().catch(() => {});
  };

  try {
    const backing = await startBackingServices(options, config, services);
    const { documentClient } = backing;
    const keys = wireKeys({ documentClient, clock, config });
    const webhooks = await startWebhooks(
      { backing, clock, config, webhooks: options.webhooks, poll: options.worker ?? true },
      services,
    );
    const messages = await startMessages(
      {
        backing,
        keys,
        clock,
        config,
        port: options.port ?? 3000,
        worker: options.worker ?? true,
        processor: options.processor,
        retryBackoff: options.retryBackoff ?? LOCAL_RETRY_BACKOFF,
        // The worker's outcomes feed the owners' webhooks, unless a test listens instead.
        outcomes: options.messageOutcomes ?? webhooks.outcomes,
      },
      services,
    );
    if (options.dataDir) {
      await messages.requeueStranded();
      await keys.restoreUsagePlans();
    }

    const domains = await startDomains(
      {
        documentClient,
        accounts: keys.accounts,
        clock,
        config,
        edgePort: options.edgePort ?? 8080,
        dnsServers: options.dnsServers,
        dataDir: options.dataDir,
        sitesDir: options.sitesDir,
        domainFlow: options.domainFlow,
      },
      services,
    );
    const { accountService } = keys;
    const control = await startControl(
      {
        documentClient,
        accountService,
        history: { accounts: keys.accounts, keys: keys.keys, history: keys.usageHistoryStore, clock },
        projects: domains.projects,
        deploys: domains.deploys,
        domains: domains.domains,
        clock,
        config,
        port: options.controlPort ?? 3001,
        webhooks: { service: webhooks.service, messages: webhooks.messageLog },
      },
      services,
    );

    const { demoAccounts, demoKeys } = await seedDemoAccounts(keys, config);
    const demoOwners = await control.linkDemoOwners();
    if (options.demoProject) await deployDemoProject(domains.projects, domains.deploys, 'acct_demo_pro');

    const dashboardUrl = options.dashboard
      ? await startDashboard(
          {
            controlServices: control.controlServices,
            port: options.dashboard.port ?? 3002,
            distDir: options.dashboard.distDir,
            messagesApiUrl: messages.api.url,
            localEdgeUrl: domains.edgeServer.url,
            uploadOrigin: domains.s3Endpoint,
            config,
            demoOwners,
          },
          services,
        )
      : undefined;
    if (dashboardUrl) {
      // The dashboard's pages upload deploy files straight to the bucket, as on AWS.
      const { port } = new URL(dashboardUrl);
      await domains.allowUploadsFrom([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
    }

    return {
      baseUrl: messages.api.url,
      controlUrl: control.controlUrl,
      edgeUrl: domains.edgeServer.url,
      dashboardUrl,
      demoOwners,
      controlServices: control.controlServices,
      platformHost: domains.platformHost,
      projects: domains.projects,
      deploys: domains.deploys,
      domains: domains.domains,
      domainFlow: domains.domainFlow,
      edge: domains.edge,
      certificates: domains.certificates,
      accountService,
      usagePlans: keys.usagePlans,
      demoKeys,
      demoAccounts,
      config,
      clock,
      endpoints: { dynamodb: backing.dynamodb.endpoint, sqs: backing.sqs.endpoint, s3: domains.s3Endpoint },
      tables: LOCAL_TABLE_NAMES,
      queues: backing.queues,
      worker: messages.worker,
      webhooks,
      stopQueueService: () => backing.sqs.pause(),
      restartQueueService: () => backing.sqs.resume(),
      redriveDeadLetters: messages.redriveDeadLetters,
      stopDatabaseService: () => backing.dynamodb.stop(),
      issueKey: async (account, name) => (await accountService.createKey(account.accountId, name)).secret,
      stop: async () => {
        await stopAll();
        backing.destroyClients();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
