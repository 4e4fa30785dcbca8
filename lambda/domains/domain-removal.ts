import { deployPrefix, type ProjectRecord, type ProjectStore } from '../projects/index.js';
import type { DomainRecord } from './domain-record.js';
import { isLive } from './domain-record.js';
import type { DomainFlowStarter, DomainStore, EdgeRouter } from './ports.js';

export interface RemovalDeps {
  readonly projects: ProjectStore;
  readonly domains: Pick<DomainStore, 'get'>;
  readonly edge: EdgeRouter;
  readonly flow: Pick<DomainFlowStarter, 'release'>;
  readonly platformDomain: string;
}

/**
 * Takes a domain that no longer serves (its record says removed, the edge refuses it) out of its
 * project's configuration: its redirect goes, redirects to it go too (their sources serve the live
 * deploy again: a redirect to a refused host would lead nowhere), and the default subdomain becomes
 * primary if it was. Then hands the release of its tenant to the flow's release branch.
 */
export async function takeOffProject(
  deps: RemovalDeps,
  record: DomainRecord,
  project: ProjectRecord,
  requestedAt: string,
): Promise<void> {
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
  await deps.flow.release({
    domain: record.domain,
    projectId: project.projectId,
    slug: project.slug,
    claimedAt: record.createdAt,
    requestedAt,
  });
}
