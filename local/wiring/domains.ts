import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountStore } from '../../lambda/keys/accounts.js';
import type { ProjectRecord } from '../../lambda/projects/project.js';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DeployCalls, deploySite, type LocalFile, type UploadInstruction } from '../../contracts/deploys.js';
import type { DeployService } from '../../lambda/projects/deploy-service.js';
import type { ProjectService } from '../../lambda/projects/project-service.js';
import { HttpProblem } from '../../lambda/shared/problem.js';
import type { Clock } from '../../lambda/shared/clock.js';
import type { PlatformConfig } from '../../lib/config/index.js';
import { createLocalDomains, type LocalDomainsOptions } from '../domains.js';
import { restoreEdge, startLocalEdge } from '../edge.js';
import { allowSiteUploads, LOCAL_TABLE_NAMES, type RunningService, startS3 } from '../emulators.js';
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

/** The deploy calls a client makes, straight to the services (the local platform's own deploys: the demo site). */
export function serviceDeployCalls(
  deploys: DeployService,
  accountId: string,
  projectId: string,
  by: string,
): DeployCalls {
  return {
    start: (files) => deploys.startDeploy(accountId, projectId, { files }, by),
    finalize: async (deployId) => {
      try {
        return { deploy: await deploys.finalizeDeploy(accountId, projectId, deployId) };
      } catch (error) {
        if (error instanceof HttpProblem && error.code === 'files_missing') {
          return { missing: (error.extensions.uploads ?? []) as UploadInstruction[] };
        }
        throw error;
      }
    },
  };
}

/**
 * Projects, deploys and custom domains (createLocalDomains), and the local edge serving them by
 * Host header. With --data, the edge's KeyValueStore is rebuilt from the stored projects and
 * domains first. Each running part is added to `services` as soon as it runs.
 */
export async function startDomains(options: DomainsWiringOptions, services: RunningService[]) {
  const { documentClient, config } = options;
  // The site bucket in s3rver, kept with --data (or in --sites-dir).
  const s3Directory = options.sitesDir ?? join(options.dataDir ?? mkdtempSync(join(tmpdir(), 'platform-')), 'sites');
  mkdirSync(s3Directory, { recursive: true });
  const s3 = await startS3({ directory: s3Directory });
  services.push(s3);
  const local = createLocalDomains({
    documentClient,
    accounts: options.accounts,
    clock: options.clock,
    config,
    ...(options.dnsServers ? { dnsServers: options.dnsServers } : {}),
    s3Endpoint: s3.endpoint,
    ...(options.domainFlow ? { domainFlow: options.domainFlow } : {}),
  });
  services.push({ endpoint: 'domain-flow', stop: local.stop });
  if (options.dataDir) {
    const stored = (await scanAll(documentClient, LOCAL_TABLE_NAMES.projects)) as ProjectRecord[];
    await restoreEdge(local.edge, stored, local.domainStore, config.platform.domain);
  }
  const edgeServer = await startLocalEdge({ port: options.edgePort, router: local.edge, origin: local.origin });
  services.push({ endpoint: edgeServer.url, stop: edgeServer.stop });
  return {
    ...local,
    edgeServer,
    s3Endpoint: s3.endpoint,
    /** Lets the dashboard's pages upload deploy files to the bucket (its CORS rule). */
    allowUploadsFrom: (origins: readonly string[]) => allowSiteUploads(s3.endpoint, origins),
  };
}

/** A small site for the Pro demo account, deployed once (kept with --data). */
export async function deployDemoProject(
  projects: ProjectService,
  deploys: DeployService,
  accountId: string,
): Promise<void> {
  const existing = (await projects.listProjects(accountId)).find((p) => p.slug === 'demo');
  if (existing?.liveDeployId) return;
  const project = existing ?? (await projects.createProject(accountId, { slug: 'demo', name: 'Demo site' }));
  const html = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Demo site</title></head>' +
    '<body><h1>Demo site</h1><p>Deployed by the local platform for the Pro demo account.</p></body></html>\n';
  const files: LocalFile[] = [{ path: 'index.html', body: new TextEncoder().encode(html) }];
  await deploySite(serviceDeployCalls(deploys, accountId, project.projectId, 'local platform'), files);
}
