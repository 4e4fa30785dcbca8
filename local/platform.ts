import { systemClock } from '../lambda/shared/clock.js';
import { loadConfig } from '../lib/config/index.js';
import { startLocalDashboard, DASHBOARD_DIST_DIR } from './dashboard.js';
import { createControlApiHandler } from '../lambda/control/http-handlers.js';
import { LOCAL_TABLE_NAMES } from './emulators.js';
import type { LocalPlatformOptions } from './options.js';
import { startBackingServices } from './wiring/backing-services.js';
import { startControl } from './wiring/control-api.js';
import { deployDemoProject, startDomains } from './wiring/domains.js';
import { seedDemoAccounts, wireKeys } from './wiring/keys.js';
import { startMessages } from './wiring/messages.js';
import { startWebhooks } from './wiring/webhooks.js';

export type { LocalPlatformOptions } from './options.js';
export type LocalPlatform = Awaited<ReturnType<typeof startLocalPlatform>>;

/** The whole platform on loopback: the handlers the stacks deploy, over dynalite, fauxqs and s3rver (local/wiring/). */
export async function startLocalPlatform(options: LocalPlatformOptions = {}) {
  const config = options.config ?? loadConfig();
  const clock = options.clock ?? systemClock;
  // Every running part, in start order; stopped in reverse, also when the start fails half-way.
  const services: { stop(): Promise<void> }[] = [];
  const stopAll = async () => {
    for (const service of services.reverse()) await service.stop().catch(() => {});
  };

  try {
    const backing = await startBackingServices({ options, config, clock, services });
    const wiring = { options, config, clock, services, backing };
    const keys = wireKeys(wiring);
    const webhooks = await startWebhooks(wiring);
    const messages = await startMessages(wiring, keys, webhooks.outcomes);
    if (options.dataDir) {
      await messages.requeueStranded();
      await keys.restoreUsagePlans();
    }
    const domains = await startDomains(wiring, keys.accounts);
    const control = await startControl(wiring, keys, domains, webhooks);
    const { demoAccounts, demoKeys, demoOwners } = await seedDemoAccounts(wiring, keys, control.ownerStore);
    if (options.demoProject) await deployDemoProject(domains.projects, domains.deploys, 'acct_demo_pro');

    let dashboardUrl: string | undefined;
    if (options.dashboard) {
      const dashboard = await startLocalDashboard({
        port: options.dashboard.port ?? 3002,
        distDir: options.dashboard.distDir ?? DASHBOARD_DIST_DIR,
        handler: createControlApiHandler(control.controlServices),
        messagesApiUrl: messages.api.url,
        platformDomain: config.platform.domain,
        localEdgeUrl: domains.edgeServer.url,
        uploadOrigin: domains.s3Endpoint,
        demoOwners,
      });
      services.push(dashboard);
      dashboardUrl = dashboard.url;
      // The dashboard's pages upload deploy files straight to the bucket, as on AWS.
      const { port } = new URL(dashboard.url);
      await domains.allowUploadsFrom([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
    }

    return {
      baseUrl: messages.api.url,
      controlUrl: control.controlUrl,
      edgeUrl: domains.edgeServer.url,
      dashboardUrl,
      /** Demo owners of the development sign-in (`<plan>@demo.local`), linked to the demo accounts. */
      demoOwners,
      /** What the platform published to the operations topic (upgrade requests): there is no SNS locally. */
      operationsTopic: control.operationsTopic,
      platformHost: domains.platformHost,
      projects: domains.projects,
      domains: domains.domains,
      domainFlow: domains.domainFlow,
      edge: domains.edge,
      certificates: domains.certificates,
      accountService: keys.accountService,
      /** The usage plans and API keys, as API Gateway would hold them. */
      usagePlans: keys.usagePlans,
      /** A fresh demo key per plan, issued at start; shown here once. */
      demoKeys,
      demoAccounts,
      config,
      clock,
      endpoints: { dynamodb: backing.dynamodb.endpoint, sqs: backing.sqs.endpoint, s3: domains.s3Endpoint },
      tables: LOCAL_TABLE_NAMES,
      queues: backing.queues,
      worker: messages.worker,
      /** Owners' webhook endpoints, their deliveries, and the worker's outcomes that feed them. */
      webhooks,
      /** Fault injection for tests: SQS or DynamoDB unavailable (SQS comes back with its queues and messages). */
      stopQueueService: () => backing.sqs.pause(),
      restartQueueService: () => backing.sqs.resume(),
      stopDatabaseService: () => backing.dynamodb.stop(),
      /** The documented DLQ redrive, locally (fauxqs has no StartMessageMoveTask); returns how many moved. */
      redriveDeadLetters: messages.redriveDeadLetters,
      issueKey: async (account: { accountId: string }, name: string) =>
        (await keys.accountService.createKey(account.accountId, name)).secret,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
