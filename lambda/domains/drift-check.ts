import type { ProjectStore } from '../projects/index.js';
import { inParallel } from '../shared/backoff.js';
import { type Clock, nowIso } from '../shared/clock.js';
import type { DnsResolver } from './dns-resolver.js';
import { checkPointing, expectationOf } from './dns-verification.js';
import { normaliseDomain } from './domain-name.js';
import type { DomainRecord } from './domain-record.js';
import { pendingReleaseOf, startRelease, takeOffProject } from './domain-removal.js';
import type { DomainFlowStarter, DomainStore, EdgeRouter } from './ports.js';

/** The round before's result, and the state machine's ARN (`$$.StateMachine.Id`) to start releases on. */
export interface DriftCheckInput {
  readonly drift: Partial<DriftCheckResult>;
  readonly stateMachineArn?: string;
}

/** Counts over the whole execution, and where the next round starts. */
export interface DriftCheckResult {
  readonly cursor?: string;
  readonly done: boolean;
  readonly checked: number;
  readonly misconfigured: number;
  readonly restored: number;
  readonly detached: number;
  /** SERVFAIL or timeout: not a finding either way. */
  readonly lookupFailed: number;
  /** Releases a removal could not start (pendingRelease), started by this run. */
  readonly releasesStarted: number;
}

/** Pending releases started per drift run: the rest wait for the next run. */
const PENDING_RELEASES_PER_RUN = 100;

export interface DriftCheckDeps {
  readonly domains: DomainStore;
  readonly projects: ProjectStore;
  readonly dns: DnsResolver;
  readonly edge: EdgeRouter;
  readonly flowFor: (stateMachineArn: string | undefined) => Pick<DomainFlowStarter, 'release'>;
  readonly clock: Clock;
  readonly platformHost: string;
  readonly platformDomain: string;
  readonly graceSeconds: number;
  /** Domains per round. @default 50 */
  readonly pageSize?: number;
  /** DNS checks at once. @default 8 */
  readonly concurrency?: number;
  readonly onFinding?: (domain: string, finding: DriftFinding) => void;
}

export type DriftFinding = 'misconfigured' | 'restored' | 'detached';

type Outcome = DriftFinding | 'unchanged' | 'lookup_failed';

/** A flow attempt is deciding these: the drift check leaves them to it. */
const ATTEMPT_RUNNING = new Set(['verifying', 'issuing_certificate']);

/** The drift branch's task (docs/owners.md); its writes are conditional, so a Verify or removal wins. */
export function createDriftCheckTask(deps: DriftCheckDeps) {
  const pageSize = deps.pageSize ?? 50;
  const concurrency = deps.concurrency ?? 8;
  const now = () => nowIso(deps.clock);

  async function checkOne(listed: DomainRecord, stateMachineArn: string | undefined): Promise<Outcome> {
    // The scan is eventually consistent: decide on the record as it is now.
    const record = await deps.domains.get(listed.domain);
    if (!record || record.state === 'removed' || ATTEMPT_RUNNING.has(record.state)) return 'unchanged';
    const name = normaliseDomain(record.domain, deps.platformDomain);
    const result = await checkPointing(name, expectationOf(record, deps.platformHost, 'drift'), deps.dns);
    const expected = { attempt: record.attempt, createdAt: record.createdAt, state: record.state };
    if (result.verified) {
      if (record.state !== 'dns_misconfigured') return 'unchanged';
      const restored = await deps.domains.update(record.domain, { state: 'active', misconfiguration: undefined, updatedAt: now() }, expected);
      return restored ? 'restored' : 'unchanged';
    }
    if (result.reason === 'dns_lookup_failed') return 'lookup_failed';
    const { reason, observed, expected: target, detail } = result;
    const previous = record.misconfiguration;
    if (previous && record.state === 'dns_misconfigured' && deps.clock.now() >= Date.parse(previous.detachAt)) {
      return (await detach(record, stateMachineArn)) ? 'detached' : 'unchanged';
    }
    const since = previous?.since ?? now();
    const misconfiguration = {
      reason,
      observed,
      expected: target,
      detail,
      since,
      detachAt: previous?.detachAt ?? new Date(Date.parse(since) + deps.graceSeconds * 1000).toISOString(),
      checkedAt: now(),
    };
    const written = await deps.domains.update(record.domain, { state: 'dns_misconfigured', misconfiguration, updatedAt: now() }, expected);
    return written ? 'misconfigured' : 'unchanged';
  }

  async function detach(record: DomainRecord, stateMachineArn: string | undefined): Promise<boolean> {
    const project = await deps.projects.get(record.projectId);
    if (!project) throw new Error(`project ${record.projectId} of ${record.domain} is missing`);
    const at = now();
    // The record first: if the owner re-verified or removed it meanwhile, nothing else happens.
    const removed = await deps.domains.update(
      record.domain,
      { state: 'removed', detachedAt: at, updatedAt: at, pendingRelease: pendingReleaseOf(record, at) },
      { attempt: record.attempt, createdAt: record.createdAt, state: 'dns_misconfigured' },
    );
    if (!removed) return false;
    await deps.edge.refuse(record.domain);
    const flow = deps.flowFor(stateMachineArn);
    await takeOffProject({ ...deps, flow }, record, project, at);
    return true;
  }

  return {
    async checkDrift(input: DriftCheckInput): Promise<DriftCheckResult> {
      const before = input.drift;
      // Once per run, on its first round: removals whose release could not be started.
      let releasesStarted = 0;
      if (before.cursor === undefined && before.checked === undefined) {
        for (const record of await deps.domains.pendingReleases(PENDING_RELEASES_PER_RUN)) {
          if (record.state !== 'removed' || !record.pendingRelease) continue;
          const flow = deps.flowFor(input.stateMachineArn);
          const started = await startRelease({ domains: deps.domains, flow }, record.domain, record.pendingRelease);
          if (started) releasesStarted++;
        }
      }
      const page = await deps.domains.liveDomains(before.cursor, pageSize);
      const outcomes: Outcome[] = [];
      await inParallel(page.records, concurrency, async (record) => {
        const outcome = await checkOne(record, input.stateMachineArn);
        if (outcome === 'misconfigured' || outcome === 'restored' || outcome === 'detached') deps.onFinding?.(record.domain, outcome);
        outcomes.push(outcome);
      });
      const count = (outcome: Outcome) => outcomes.filter((o) => o === outcome).length;
      return {
        ...(page.cursor ? { cursor: page.cursor } : {}),
        done: page.cursor === undefined,
        checked: (before.checked ?? 0) + outcomes.length,
        misconfigured: (before.misconfigured ?? 0) + count('misconfigured'),
        restored: (before.restored ?? 0) + count('restored'),
        detached: (before.detached ?? 0) + count('detached'),
        lookupFailed: (before.lookupFailed ?? 0) + count('lookup_failed'),
        releasesStarted: (before.releasesStarted ?? 0) + releasesStarted,
      };
    },
  };
}

export type DriftCheckTask = ReturnType<typeof createDriftCheckTask>;
