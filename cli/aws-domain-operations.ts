import { ListExecutionsCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { domainFlowExecutionName, domainReleaseExecutionName } from '../contracts/domain-flow.js';
import type { DomainRecord } from '../lambda/domains/domain-record.js';
import { type DomainView, domainView } from '../lambda/domains/domain-view.js';
import { DynamoDbDomainStore } from '../lambda/domains/dynamodb-domain-store.js';
import type { TenantReleaseRequest } from '../lambda/domains/ports.js';
import { SfnDomainFlowStarter } from '../lambda/domains/sfn-flow-starter.js';
import { DynamoDbProjectStore } from '../lambda/projects/index.js';
import { MANAGEMENT_PLANE } from '../lambda/shared/aws-clients.js';
import { systemClock } from '../lambda/shared/clock.js';
import { createDocumentClient } from '../lambda/shared/dynamodb.js';
import { DOMAINS_OUTPUTS } from '../lib/stacks/domains-stack-outputs.js';
import { type DeployedStack, describeStack, operatorOutputs, publishedConfig, requiredOutput, siblingStackName } from './deployed-stack.js';
import { CliError } from './errors.js';
import type { DriftCheckStarted } from './operator-client.js';

/** The domain flow's drift-check input, as its EventBridge schedule sends it (lib/constructs/domains/drift-schedule.ts). */
export const DRIFT_CHECK_EXECUTION_INPUT = { drift: {} } as const;

export async function startDriftCheck(
  api: DeployedStack,
  now: () => Date = () => new Date(),
): Promise<DriftCheckStarted> {
  const { region } = api;
  const domains = await describeStack(siblingStackName(api, 'Domains'), region);
  const stateMachineArn = requiredOutput(domains, DOMAINS_OUTPUTS.domains.stateMachineArn);
  const startedAt = now();
  const started = await new SFNClient({ ...MANAGEMENT_PLANE, region }).send(
    new StartExecutionCommand({
      stateMachineArn,
      name: `drift-operator-${startedAt.getTime()}`,
      input: JSON.stringify(DRIFT_CHECK_EXECUTION_INPUT),
    }),
  );
  return { execution: started.executionArn ?? '', startedAt: (started.startDate ?? startedAt).toISOString() };
}

/** How many pages (100 executions each, newest first) `domains show` reads of the flow's executions. */
const HISTORY_PAGES = 10;

/** One execution of the domain flow for a domain: a verification attempt, or a release of its tenant. */
type DomainFlowRun = { name: string; kind: 'verification' | 'release'; status: string; startedAt?: string; stoppedAt?: string };

/** Whether an execution of the flow is one of this domain's attempts or releases, by its name. */
export function domainRunKind(domain: string, executionName: string): DomainFlowRun['kind'] | undefined {
  const attemptPrefix = domainFlowExecutionName(domain, 0).replace(/0$/, '');
  if (executionName.startsWith(attemptPrefix) && /^\d+$/.test(executionName.slice(attemptPrefix.length))) return 'verification';
  const releasePrefix = domainReleaseExecutionName(domain, new Date(0).toISOString()).replace(/0$/, '');
  if (executionName.startsWith(releasePrefix)) return 'release';
  return undefined;
}

/** The deployed environment's domain capability: `<prefix>-Domains` (the flow) and `-DomainsData` (tables, edge). */
async function openDeployedDomains(api: DeployedStack) {
  const { region } = api;
  const [flow, data] = await Promise.all([
    describeStack(siblingStackName(api, 'Domains'), region),
    describeStack(siblingStackName(api, 'DomainsData'), region),
  ]);
  const documentClient = createDocumentClient({ region });
  const tables = DOMAINS_OUTPUTS.domainsData;
  return {
    region,
    stateMachineArn: requiredOutput(flow, DOMAINS_OUTPUTS.domains.stateMachineArn),
    platformHost: requiredOutput(data, tables.platformHost),
    data,
    documentClient,
    domains: new DynamoDbDomainStore(documentClient, requiredOutput(data, tables.domainsTableName)),
    projects: new DynamoDbProjectStore(documentClient, requiredOutput(data, tables.projectsTableName)),
    sfn: new SFNClient({ ...MANAGEMENT_PLANE, region }),
  };
}

/** `work` on the environment's record of `domain` (a domain_not_found error when it has none). */
async function onDomain<T>(
  api: DeployedStack,
  domain: string,
  work: (deployed: Awaited<ReturnType<typeof openDeployedDomains>>, record: DomainRecord) => Promise<T>,
): Promise<T> {
  const deployed = await openDeployedDomains(api);
  try {
    const record = await deployed.domains.get(domain);
    if (!record) throw new CliError(`no domain ${domain} in this environment`, { code: 'domain_not_found' });
    return await work(deployed, record);
  } finally {
    deployed.sfn.destroy();
  }
}

/** `domains show --stack`: the domain's record (and whose it is) and the flow's executions for it, newest first. */
export function showDomain(api: DeployedStack, domain: string) {
  return onDomain(api, domain, async (deployed, record) => {
    const history: DomainFlowRun[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    do {
      const page = await deployed.sfn.send(
        new ListExecutionsCommand({ stateMachineArn: deployed.stateMachineArn, maxResults: 100, nextToken }),
      );
      for (const execution of page.executions ?? []) {
        const kind = domainRunKind(domain, execution.name ?? '');
        if (!kind) continue;
        history.push({
          name: execution.name ?? '',
          kind,
          status: execution.status ?? 'UNKNOWN',
          ...(execution.startDate ? { startedAt: execution.startDate.toISOString() } : {}),
          ...(execution.stopDate ? { stoppedAt: execution.stopDate.toISOString() } : {}),
        });
      }
      nextToken = page.nextToken;
      pages += 1;
    } while (nextToken && pages < HISTORY_PAGES);
    const view = { ...domainView(record), accountId: record.accountId };
    return { domain: view, history, historyTruncated: nextToken !== undefined };
  });
}

/** The release branch again for a removed domain whose release failed: requested now, under a new name. */
export function releaseDomainTenant(api: DeployedStack, domain: string, now: () => Date = () => new Date()) {
  return onDomain(api, domain, async (deployed, record) => {
    if (record.state !== 'removed') {
      throw new CliError(`${domain} is ${record.state}, not removed: only a removed domain's tenant is released`, {
        code: 'domain_not_removed',
      });
    }
    // What a removal sends (SfnDomainFlowStarter.release): the domain, and the rest as `release`.
    const requestedAt = now().toISOString();
    const release: Omit<TenantReleaseRequest, 'domain'> = { projectId: record.projectId, claimedAt: record.createdAt, requestedAt };
    const execution = domainReleaseExecutionName(domain, requestedAt);
    const input = JSON.stringify({ domain, release });
    const { stateMachineArn } = deployed;
    await deployed.sfn.send(new StartExecutionCommand({ stateMachineArn, name: execution, input }));
    return { domain, execution, startedAt: requestedAt };
  });
}

/** `domains verify --stack`: the owner's Re-verify (DomainService.verify), run for them. */
export function reverifyDomain(api: DeployedStack, domain: string): Promise<DomainView> {
  return onDomain(api, domain, async (deployed, record) => {
    if (record.state === 'removed') {
      throw new CliError(`${domain} is removed: there is nothing to verify (see domains release for its tenant)`, { code: 'domain_removed' });
    }
    const [{ DomainService }, { kvsEdgeRouter }, { DynamoDbAccountStore }] = await Promise.all([
      import('../lambda/domains/domain-service.js'),
      import('../lambda/domains/aws-adapters.js'),
      import('../lambda/keys/accounts.js'),
    ]);
    // The control API's own wiring (lambda/control/http-handler.ts).
    const service = new DomainService({
      accounts: new DynamoDbAccountStore(deployed.documentClient, operatorOutputs(api).accountsTableName),
      projects: deployed.projects,
      domains: deployed.domains,
      edge: kvsEdgeRouter(requiredOutput(deployed.data, DOMAINS_OUTPUTS.domainsData.keyValueStoreArn)),
      flow: new SfnDomainFlowStarter({ client: deployed.sfn, stateMachineArn: deployed.stateMachineArn }),
      clock: systemClock,
      config: publishedConfig(api),
      platformHost: deployed.platformHost,
    });
    return service.verify(record.accountId, record.projectId, domain);
  });
}
