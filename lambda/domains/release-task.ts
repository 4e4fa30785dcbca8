import { TENANT_RELEASE_DEFAULTS } from '../../contracts/domain-flow.js';
import type { Clock } from '../shared/clock.js';
import type { CertificateAuthority, DomainStore, EdgeCleanup, ReleaseOutcome, TenantClaim, TenantReleaseRequest } from './ports.js';

/** The execution input, and the task's own result of the round before. */
export interface ReleaseTaskInput {
  readonly domain: string;
  readonly release: Omit<TenantReleaseRequest, 'domain'>;
  readonly released?: ReleaseTaskResult;
}

export interface ReleaseTaskResult {
  readonly status: ReleaseOutcome;
  /** Rounds that found the tenant still deploying its disable. */
  readonly attempts: number;
  readonly waitSeconds: number;
  /** Pending past the give-up time: the execution fails (alarm). */
  readonly expired: boolean;
  readonly edgeEntryDeleted?: boolean;
}

export interface ReleaseTaskDeps {
  readonly domains: DomainStore;
  readonly certificates: CertificateAuthority;
  readonly edge: EdgeCleanup;
  readonly clock: Clock;
  /** @default TENANT_RELEASE_DEFAULTS */
  readonly timing?: Partial<typeof TENANT_RELEASE_DEFAULTS>;
}

/** The release branch's task: one release step per round, then the edge's refusal entry is dropped. */
export function createReleaseTask(deps: ReleaseTaskDeps) {
  const timing = { ...TENANT_RELEASE_DEFAULTS, ...deps.timing };

  const currentClaim = async (domain: string): Promise<TenantClaim | undefined> => {
    const record = await deps.domains.get(domain);
    return record && record.state !== 'removed' ? { domain, projectId: record.projectId } : undefined;
  };

  const stillRemoved = async (domain: string): Promise<boolean> => {
    const record = await deps.domains.get(domain);
    return !record || record.state === 'removed';
  };

  return {
    async releaseTenant(input: ReleaseTaskInput): Promise<ReleaseTaskResult> {
      const { domain, release } = input;
      const claim = { domain, projectId: release.projectId };
      const status = await deps.certificates.release(claim, () => currentClaim(domain));
      const attempts = input.released?.attempts ?? 0;
      if (status === 'pending') {
        const waitSeconds = Math.min(timing.maxWaitSeconds, timing.firstWaitSeconds * 2 ** attempts);
        const requested = Date.parse(release.requestedAt);
        // An unreadable removal time must not loop for ever: give up at once (the alarm says so).
        const expired = Number.isNaN(requested) || deps.clock.now() - requested >= timing.giveUpSeconds * 1000;
        return { status, attempts: attempts + 1, waitSeconds, expired };
      }
      if (status === 'kept') return { status, attempts, waitSeconds: 0, expired: false };
      const edgeEntryDeleted = await deps.edge.forgetRefusal(domain, () => stillRemoved(domain));
      return { status, attempts, waitSeconds: 0, expired: false, edgeEntryDeleted };
    },
  };
}

export type ReleaseTask = ReturnType<typeof createReleaseTask>;
