import { deployPrefix, type ProjectRecord, type ProjectStore } from '../projects/index.js';
import { logger } from '../shared/powertools.js';
import type { DomainRecord, PendingRelease } from './domain-record.js';
import { isLive } from './domain-record.js';
import type { DomainFlowStarter, DomainStore, EdgeRouter } from './ports.js';

export interface RemovalDeps {
  readonly projects: ProjectStore;
  readonly domains: Pick<DomainStore, 'get' | 'update'>;
  readonly edge: EdgeRouter;
  readonly flow: Pick<DomainFlowStarter, 'release'>;
  readonly platformDomain: string;
}

/** The release a removal of `record` asks for; written on the record with the removal itself. */
export const pendingReleaseOf = (record: DomainRecord, requestedAt: string): PendingRelease => ({
  projectId: record.projectId,
  claimedAt: record.createdAt,
  requestedAt,
});

/** Starts the release and clears `pendingRelease`; when it cannot start, the drift sweep starts it later. */
export async function startRelease(deps: Pick<RemovalDeps, 'domains' | 'flow'>, domain: string, release: PendingRelease) {
  try {
    await deps.flow.release({ domain, ...release });
  } catch (error) {
    logger.warn('release not started; the drift sweep will start it', { domain, error: error as Error });
    return false;
  }
  await deps.domains.update(domain, { pendingRelease: undefined }, { createdAt: release.claimedAt, state: 'removed' });
  return true;
}

/** Takes a removed domain out of its project's configuration (and redirects to it), then starts its release. */
export async function takeOffProject(deps: RemovalDeps, record: DomainRecord, project: ProjectRecord, at: string) {
  const defaultDomain = `${project.slug}.${deps.platformDomain}`;
  const orphaned = project.domains.redirects.filter((r) => r.to === record.domain);
  const redirects = project.domains.redirects.filter((r) => r.from !== record.domain && r.to !== record.domain);
  const primary = project.domains.primary === record.domain ? defaultDomain : project.domains.primary;
  await deps.projects.update(project.projectId, { domains: { primary, redirects } });
  if (project.liveDeployId) {
    const prefix = deployPrefix(project.projectId, project.liveDeployId);
    for (const source of orphaned) {
      const sourceRecord = await deps.domains.get(source.from);
      const live = sourceRecord?.projectId === project.projectId && isLive(sourceRecord);
      if (live) await deps.edge.serve(source.from, prefix);
    }
  }
  await startRelease(deps, record.domain, pendingReleaseOf(record, at));
}
