import type { ControlServices } from '../../lambda/control/control-router.js';
import { DynamoDbOwnerStore, OwnerDirectory } from '../../lambda/control/owners.js';
import { type OperationsNotifier, UpgradeRequests } from '../../lambda/keys/upgrade-requests.js';
import { UsageHistory } from '../../lambda/usage-history/usage-history.js';
import type { Clock } from '../../lambda/shared/clock.js';
import { startControlApi } from '../control-api.js';
import { LOCAL_TABLE_NAMES } from '../emulators.js';
import type { Wiring } from './backing-services.js';
import type { startDomains } from './domains.js';
import type { wireKeys } from './keys.js';
import type { startWebhooks } from './webhooks.js';

/** The operations topic locally: there is no SNS, so what the control API publishes is recorded and printed. */
class RecordedOperationsTopic implements OperationsNotifier {
  readonly messages: { subject: string; message: Readonly<Record<string, unknown>>; publishedAt: string }[] = [];

  constructor(private readonly clock: Clock) {}

  async notify(subject: string, message: Readonly<Record<string, unknown>>): Promise<void> {
    this.messages.push({ subject, message, publishedAt: new Date(this.clock.now()).toISOString() });
    console.log(`[operations topic] ${subject}`);
  }
}

/** The operator's control API over the services the dashboard answers through, with the owners' directory. */
export async function startControl(
  { options, backing, clock, config, services }: Wiring,
  keys: ReturnType<typeof wireKeys>,
  { projects, deploys, domains }: Awaited<ReturnType<typeof startDomains>>,
  webhooks: Awaited<ReturnType<typeof startWebhooks>>,
) {
  const { accountService, accounts } = keys;
  const ownerStore = new DynamoDbOwnerStore(backing.documentClient, LOCAL_TABLE_NAMES.owners);
  const operationsTopic = new RecordedOperationsTopic(clock);
  const controlServices: ControlServices = {
    accountService,
    projects,
    deploys,
    domains,
    owners: new OwnerDirectory({ store: ownerStore, accountService, clock }),
    config,
    usageHistory: new UsageHistory({ accounts, keys: keys.keys, history: keys.usageHistoryStore, clock }),
    upgradeRequests: new UpgradeRequests({ accounts, notifier: operationsTopic, clock }),
    webhooks: { service: webhooks.service, messages: webhooks.messageLog },
  };
  const control = await startControlApi(controlServices, options.controlPort ?? 3001);
  services.push(control);
  return { controlServices, operationsTopic, controlUrl: control.url, ownerStore };
}
