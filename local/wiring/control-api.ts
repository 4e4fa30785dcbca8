import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ControlServices } from '../../lambda/control/control-router.js';
import { DynamoDbOwnerStore, OwnerDirectory } from '../../lambda/control/owners.js';
import type { DomainService } from '../../lambda/domains/domain-service.js';
import type { AccountService } from '../../lambda/keys/account-service.js';
import type { DeployService } from '../../lambda/projects/deploy-service.js';
import type { ProjectService } from '../../lambda/projects/project-service.js';
import { UsageHistory, type UsageHistoryDeps } from '../../lambda/usage-history/usage-history.js';
import type { Clock } from '../../lambda/shared/clock.js';
import { PLAN_IDS, type PlatformConfig } from '../../lib/config/index.js';
import { startControlApi } from '../control-api.js';
import { type DemoOwner, DevSignIn } from '../dashboard.js';
import { LOCAL_TABLE_NAMES, type RunningService } from '../emulators.js';

export interface ControlApiWiringOptions {
  readonly documentClient: DynamoDBDocumentClient;
  readonly accountService: AccountService;
  /** What the usage-history route reads: accounts, keys (revoked too) and the daily counts. */
  readonly history: UsageHistoryDeps;
  readonly projects: ProjectService;
  readonly deploys: DeployService;
  readonly domains: DomainService;
  readonly clock: Clock;
  readonly config: PlatformConfig;
  /** Control API port on 127.0.0.1; 0 picks a free one. */
  readonly port: number;
  /** Owners' webhooks and the message pages. */
  readonly webhooks?: ControlServices['webhooks'];
}

/**
 * The control API (the operator's, on loopback without authentication) over the same
 * services the dashboard answers through, with the owners' directory. Added to `services` once it runs.
 */
export async function startControl(options: ControlApiWiringOptions, services: RunningService[]) {
  const { accountService, projects, deploys, domains, clock, config } = options;
  const ownerStore = new DynamoDbOwnerStore(options.documentClient, LOCAL_TABLE_NAMES.owners);
  const owners = new OwnerDirectory({ store: ownerStore, accountService, clock });
  const usageHistory = new UsageHistory(options.history);
  const controlServices: ControlServices = {
    accountService,
    projects,
    deploys,
    domains,
    owners,
    config,
    usageHistory,
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
  };
  const control = await startControlApi(controlServices, options.port);
  services.push({ endpoint: control.url, stop: control.stop });
  return {
    controlServices,
    controlUrl: control.url,
    /** Development sign-in: `<plan>@demo.local` owns the demo account of that plan (`acct_demo_<plan>`). */
    async linkDemoOwners(): Promise<DemoOwner[]> {
      const demoOwners = PLAN_IDS.map((plan) => ({ email: `${plan}@demo.local`, plan }));
      for (const owner of demoOwners) {
        await ownerStore.link({
          ownerId: DevSignIn.ownerIdOf(owner.email),
          accountId: `acct_demo_${owner.plan}`,
          email: owner.email,
          createdAt: new Date(clock.now()).toISOString(),
        });
      }
      return demoOwners;
    },
  };
}
