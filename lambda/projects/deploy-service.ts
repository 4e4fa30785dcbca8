import { type Clock, nowIso } from '../shared/clock.js';
import { logger } from '../shared/powertools.js';
import { monotonicUlid } from '../shared/ulid.js';
import { checkManifest, type ManifestFile } from './deploy-manifest.js';
import { HttpProblem, refuse } from '../shared/problem.js';
import type { components } from '../../contracts/openapi/control-api.js';
import type { ProjectDomainsPort, ProjectStore, SiteEdge, SiteStorage } from './ports.js';
import { type DeployRecord, deployPrefix, type ProjectRecord } from './project.js';
import { ownedProject } from './project-service.js';

/** Deploys kept per project (records, published files, manifests); older ones are pruned. */
export const DEPLOY_HISTORY = 20;
/** A deploy left in progress longer than this no longer blocks the next one. */
const STALE_DEPLOY_MS = 15 * 60_000;

export interface DeployServiceDeps {
  readonly projects: ProjectStore;
  readonly domains: Pick<ProjectDomainsPort, 'liveDomains'>;
  readonly storage: SiteStorage;
  readonly edge: SiteEdge;
  readonly clock: Clock;
  readonly platformDomain: string;
}

type DeployListing = components['schemas']['DeployListing'];

/** Deploys from a manifest, finalize and rollback (docs/projects.md, "Deploying"). */
export class DeployService {
  constructor(private readonly deps: DeployServiceDeps) {}

  async startDeploy(accountId: string, projectId: string, input: { files?: unknown }, by: string) {
    const project = await ownedProject(this.deps.projects, accountId, projectId);
    const files = checkManifest(input.files);
    const nowMs = this.deps.clock.now();
    const history = project.deploys ?? [];
    const running = history.find((d) => d.state === 'in_progress');
    if (project.deployState === 'in_progress' && running && nowMs - Date.parse(running.startedAt) < STALE_DEPLOY_MS) {
      throw refuse('deploy_in_progress', `Deploy ${running.deployId} is still in progress; wait for it to finish.`, 409);
    }
    const missing = await this.missing(projectId, files);
    const missingHashes = new Set(missing.map((f) => f.sha256));
    const deployId = `dep_${monotonicUlid(nowMs)}`;
    const deploy: DeployRecord = {
      deployId,
      state: 'in_progress',
      startedAt: new Date(nowMs).toISOString(),
      by,
      fileCount: files.length,
      bytes: files.reduce((sum, f) => sum + f.size, 0),
      uploadCount: missing.length,
      uploadBytes: missing.reduce((sum, f) => sum + f.size, 0),
    };
    await this.deps.storage.putManifest(projectId, deployId, files);
    // A stale deploy this one supersedes is closed as failed: it will never be finalized.
    const closed = history.map((d): DeployRecord =>
      d.state === 'in_progress' ? { ...d, state: 'failed', finishedAt: deploy.startedAt, error: 'Abandoned: not finalized in time.' } : d,
    );
    const started = await this.deps.projects.update(projectId, { deployState: 'in_progress', deploys: [deploy, ...closed] }, project.deployState);
    if (!started) throw refuse('deploy_in_progress', 'Another deploy of this project just started.', 409);
    const uploads = await Promise.all(missing.map((f) => this.deps.storage.presignUpload(projectId, f)));
    return { deploy, uploads, skipped: files.filter((f) => !missingHashes.has(f.sha256)).length };
  }

  /** Every content must be listed in the bucket with its size, else 409 `files_missing` with fresh URLs. */
  async finalizeDeploy(accountId: string, projectId: string, deployId: string): Promise<DeployRecord> {
    const project = await ownedProject(this.deps.projects, accountId, projectId);
    const deploy = this.deployOf(project, deployId);
    if (deploy.state === 'succeeded') return deploy;
    if (deploy.state === 'failed') {
      throw refuse('deploy_failed', `Deploy ${deployId} ${deploy.error ?? 'failed'} Start a new deploy.`, 409);
    }
    const files = await this.deps.storage.getManifest(projectId, deployId);
    if (!files) throw refuse('deploy_not_found', `Deploy ${deployId} has no manifest; start a new deploy.`, 404);
    const missing = await this.missing(projectId, files);
    if (missing.length > 0) {
      const uploads = await Promise.all(missing.map((f) => this.deps.storage.presignUpload(projectId, f)));
      throw new HttpProblem({
        status: 409,
        code: 'files_missing',
        detail: `${missing.length} of the deploy's files are not uploaded yet (or not with their size); upload them and finalize again.`,
        extensions: { missing: missing.map((f) => f.sha256), uploads },
      });
    }
    try {
      await this.deps.storage.publish(projectId, deployId, files);
      await this.serveAt(project, deployPrefix(projectId, deployId));
    } catch (error) {
      // The cause stays in our logs; the owner learns that the live version is unchanged.
      logger.error('deploy failed', { projectId, deployId, error: error as Error });
      const finishedAt = nowIso(this.deps.clock);
      const failed: DeployRecord = { ...deploy, state: 'failed', finishedAt, error: 'could not be published.' };
      await this.deps.projects.update(projectId, { deployState: 'failed', deploys: this.replace(project, failed) });
      throw refuse('deploy_failed', `Deploy ${deployId} failed and the live version is unchanged. Retry the deploy.`, 502);
    }
    const finished: DeployRecord = { ...deploy, state: 'succeeded', finishedAt: nowIso(this.deps.clock) };
    const deploys = await this.prune({ ...project, liveDeployId: deployId, deploys: this.replace(project, finished) });
    await this.deps.projects.update(projectId, { deployState: 'succeeded', liveDeployId: deployId, deploys, updatedAt: finished.finishedAt });
    return finished;
  }

  async listDeploys(accountId: string, projectId: string): Promise<DeployListing[]> {
    const project = await ownedProject(this.deps.projects, accountId, projectId);
    return (project.deploys ?? []).map((d) => ({ ...d, live: d.deployId === project.liveDeployId }));
  }

  /** Serves an earlier successful deploy from the next request on: the edge's pointer changes, nothing is uploaded. */
  async rollback(accountId: string, projectId: string, deployId: string): Promise<DeployListing> {
    const project = await ownedProject(this.deps.projects, accountId, projectId);
    const deploy = this.deployOf(project, deployId);
    if (deploy.state !== 'succeeded') {
      throw refuse('deploy_not_rollbackable', `Deploy ${deployId} did not succeed; only a successful deploy can be served again.`, 409);
    }
    await this.serveAt(project, deployPrefix(projectId, deployId));
    await this.deps.projects.update(projectId, { liveDeployId: deployId, updatedAt: nowIso(this.deps.clock) });
    return { ...deploy, live: true };
  }

  /** The default subdomain and every live custom domain that is not a redirect source. */
  private async serveAt(project: ProjectRecord, prefix: string): Promise<void> {
    const redirecting = new Set(project.domains.redirects.map((r) => r.from));
    const custom = await this.deps.domains.liveDomains(project.projectId);
    const hosts = [`${project.slug}.${this.deps.platformDomain}`, ...custom.filter((d) => !redirecting.has(d))];
    for (const host of hosts) await this.deps.edge.serve(host, prefix);
  }

  /** Keeps the newest DEPLOY_HISTORY deploys and the live one; runs under the deploy lock. */
  private async prune(project: ProjectRecord): Promise<DeployRecord[]> {
    const history = project.deploys ?? [];
    const kept = history.filter((d, index) => index < DEPLOY_HISTORY || d.deployId === project.liveDeployId);
    const dropped = history.filter((d) => !kept.includes(d));
    if (dropped.length === 0) return kept;
    const referenced = new Set<string>();
    for (const deploy of kept) {
      const files = await this.deps.storage.getManifest(project.projectId, deploy.deployId);
      for (const file of files ?? []) referenced.add(file.sha256);
    }
    for (const deploy of dropped) await this.deps.storage.deleteDeploy(project.projectId, deploy.deployId);
    const stored = await this.deps.storage.storedContent(project.projectId);
    const unreferenced = [...stored.keys()].filter((hash) => !referenced.has(hash));
    if (unreferenced.length > 0) await this.deps.storage.deleteContent(project.projectId, unreferenced);
    return kept;
  }

  /** The distinct contents of `files` not stored with their size. */
  private async missing(projectId: string, files: readonly ManifestFile[]): Promise<ManifestFile[]> {
    const stored = await this.deps.storage.storedContent(projectId);
    const distinct = [...new Map(files.map((f) => [f.sha256, f])).values()];
    return distinct.filter((f) => stored.get(f.sha256) !== f.size);
  }

  private deployOf(project: ProjectRecord, deployId: string): DeployRecord {
    const deploy = project.deploys?.find((d) => d.deployId === deployId);
    if (!deploy) throw refuse('deploy_not_found', `No deploy ${deployId} in project ${project.projectId}.`, 404);
    return deploy;
  }

  private replace(project: ProjectRecord, deploy: DeployRecord): DeployRecord[] {
    return (project.deploys ?? []).map((d) => (d.deployId === deploy.deployId ? deploy : d));
  }
}
