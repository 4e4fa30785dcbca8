import type { AccountStore } from '../../lambda/keys/accounts.js';
import type { ProjectRecord } from '../../lambda/projects/project.js';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deploySite, type LocalFile, type UploadInstruction } from '../../contracts/deploys.js';
import type { DeployService } from '../../lambda/projects/deploy-service.js';
import type { ProjectService } from '../../lambda/projects/project-service.js';
import { HttpProblem } from '../../lambda/shared/problem.js';
import { createLocalDomains } from '../domains.js';
import { restoreEdge, startLocalEdge } from '../edge.js';
import { LOCAL_TABLE_NAMES, startS3 } from '../emulators.js';
import { scanAll, type Wiring } from './backing-services.js';

/** Projects, deploys and custom domains (createLocalDomains), and the local edge serving them by Host header. */
export async function startDomains(wiring: Wiring, accounts: AccountStore) {
  const { options, backing: { documentClient }, clock, config, services } = wiring;
  // The site bucket in s3rver, kept with --data.
  const s3Directory = join(options.dataDir ?? mkdtempSync(join(tmpdir(), 'platform-')), 'sites');
  mkdirSync(s3Directory, { recursive: true });
  const s3 = await startS3(s3Directory);
  services.push(s3);
  const { dnsServers, domainFlow } = options;
  const s3Endpoint = s3.endpoint;
  const local = createLocalDomains({ documentClient, accounts, clock, config, dnsServers, s3Endpoint, domainFlow });
  services.push(local);
  if (options.dataDir) {
    const stored = (await scanAll(documentClient, LOCAL_TABLE_NAMES.projects)) as ProjectRecord[];
    await restoreEdge(local.edge, stored, local.domainStore, config.platform.domain);
  }
  const edgeServer = await startLocalEdge({ port: options.edgePort ?? 8080, router: local.edge, origin: local.origin });
  services.push(edgeServer);
  return { ...local, edgeServer, s3Endpoint, allowUploadsFrom: s3.allowUploadsFrom };
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
  // The deploy calls a client makes, straight to the services.
  const { projectId } = project;
  const finalize = async (deployId: string) => {
    try {
      return { deploy: await deploys.finalizeDeploy(accountId, projectId, deployId) };
    } catch (error) {
      if (!(error instanceof HttpProblem) || error.code !== 'files_missing') throw error;
      return { missing: (error.extensions.uploads ?? []) as UploadInstruction[] };
    }
  };
  await deploySite({ start: (files) => deploys.startDeploy(accountId, projectId, { files }, 'local platform'), finalize }, files);
}
