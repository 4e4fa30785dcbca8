import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountStore } from '../../lambda/keys/accounts.js';
import type { ProjectRecord } from '../../lambda/projects/project.js';
import type { ProjectService } from '../../lambda/projects/project-service.js';
import type { Clock } from '../../lambda/shared/clock.js';
import type { PlatformConfig } from '../../lib/config/index.js';
import { createLocalDomains, type LocalDomainsOptions } from '../domains.js';
import { restoreEdge, startLocalEdge } from '../edge.js';
import { LOCAL_TABLE_NAMES, type RunningService } from '../emulators.js';
import { scanAll } from './scan.js';

export interface DomainsWiringOptions {
  readonly documentClient: DynamoDBDocumentClient;
  readonly accounts: AccountStore;
  readonly clock: Clock;
  readonly config: PlatformConfig;
  /** Edge port on 127.0.0.1; 0 picks a free one. */
  readonly edgePort: number;
  readonly dnsServers?: readonly string[] | undefined;
  readonly dataDir?: string | undefined;
  readonly sitesDir?: string | undefined;
  readonly domainFlow?: LocalDomainsOptions['domainFlow'] | undefined;
}

/**
 * Projects, deploys and custom domains (createLocalDomains), and the local edge serving them by
 * Host header. With --data, the edge's KeyValueStore is rebuilt from the stored projects and
 * domains first. Each running part is added to `services` as soon as it runs.
 */
export async function startDomains(options: DomainsWiringOptions, services: RunningService[]) {
  const { documentClient, config } = options;
  const local = createLocalDomains({
    documentClient,
    accounts: options.accounts,
    clock: options.clock,
    config,
    ...(options.dnsServers ? { dnsServers: options.dnsServers } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.sitesDir ? { sitesDir: options.sitesDir } : {}),
    ...(options.domainFlow ? { domainFlow: options.domainFlow } : {}),
  });
  services.push({ endpoint: 'domain-flow', stop: local.stop });
  if (options.dataDir) {
    const stored = (await scanAll(documentClient, LOCAL_TABLE_NAMES.projects)) as ProjectRecord[];
    await restoreEdge(local.edge, stored, local.domainStore, config.platform.domain);
  }
  const edgeServer = await startLocalEdge({ port: options.edgePort, router: local.edge, storage: local.storage });
  services.push({ endpoint: edgeServer.url, stop: edgeServer.stop });
  return { ...local, edgeServer };
}

/** A small site for the Pro demo account, deployed once (kept with --data). */
export async function deployDemoProject(projects: ProjectService, accountId: string): Promise<void> {
  const existing = (await projects.listProjects(accountId)).find((p) => p.slug === 'demo');
  if (existing?.liveDeployId) return;
  const project = existing ?? (await projects.createProject(accountId, { slug: 'demo', name: 'Demo site' }));
  const html = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Demo site</title></head>' +
    '<body><h1>Demo site</h1><p>Deployed by the local platform for the Pro demo account.</p></body></html>\n';
  await projects.deploy(accountId, project.projectId, [{ path: 'index.html', body: Buffer.from(html) }]);
}
