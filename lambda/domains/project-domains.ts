import type { ProjectDomainsPort, ProjectRecord } from '../projects/index.js';
import { type Clock, nowIso } from '../shared/clock.js';
import { isLive } from './domain-record.js';
import { pendingReleaseOf, startRelease } from './domain-removal.js';
import type { DomainFlowStarter, DomainStore, EdgeRouter } from './ports.js';

export interface ProjectDomainsDeps {
  readonly domains: DomainStore;
  readonly edge: EdgeRouter;
  readonly flow: Pick<DomainFlowStarter, 'release'>;
  readonly clock: Clock;
}

/** ProjectDomainsPort: releaseAll removes each domain as its owner would, leaving the project's configuration. */
export function createProjectDomains(deps: ProjectDomainsDeps): ProjectDomainsPort {
  return {
    async liveDomains(projectId) {
      return (await deps.domains.listByProject(projectId)).filter(isLive).map((d) => d.domain);
    },
    async heldDomains(projectId) {
      return (await deps.domains.listByProject(projectId)).filter((d) => d.state !== 'removed').map((d) => d.domain);
    },
    async releaseAll(project: ProjectRecord) {
      const released: string[] = [];
      for (const record of await deps.domains.listByProject(project.projectId)) {
        if (record.state === 'removed') {
          // A delete retried after a failure: start what is still pending.
          if (record.pendingRelease) await startRelease(deps, record.domain, record.pendingRelease);
          continue;
        }
        await deps.edge.refuse(record.domain);
        const now = nowIso(deps.clock);
        const pendingRelease = pendingReleaseOf(record, now);
        const removed = await deps.domains.update(
          record.domain,
          { state: 'removed', updatedAt: now, pendingRelease },
          { createdAt: record.createdAt, attempt: record.attempt },
        );
        if (!removed) continue;
        await startRelease(deps, record.domain, pendingRelease);
        released.push(record.domain);
      }
      return released;
    },
  };
}
