import { DOMAIN_FLOW_DEFAULTS } from '../../contracts/domain-flow.js';
import { deployPrefix, type ProjectRecord, type ProjectStore } from '../projects/index.js';
import { type Clock, nowIso } from '../shared/clock.js';
import { diagnoseCaa } from './caa.js';
import type { DnsResolver } from './dns-resolver.js';
import { expectationOf, verifyDns } from './dns-verification.js';
import { normaliseDomain } from './domain-name.js';
import { type DomainDiagnosis, type DomainRecord, isLive } from './domain-record.js';
import type { CertificateAuthority, CertificateStatus, DomainStore, EdgeRouter } from './ports.js';

/** What each task of the state machine receives: the execution input plus earlier results. */
export interface FlowInput {
  readonly domain: string;
  readonly attempt: number;
  readonly pollSeconds?: number;
  readonly watchdogSeconds?: number;
  readonly certificate?: { readonly status: string; readonly reason?: string; readonly watchdogExpired?: boolean };
  /** Set by the state machine's Catch when a certificate step failed unexpectedly. */
  readonly error?: { readonly Error?: string; readonly Cause?: string };
}

export interface FlowTaskDeps {
  readonly domains: DomainStore;
  readonly projects: ProjectStore;
  readonly dns: DnsResolver;
  readonly certificates: CertificateAuthority;
  readonly edge: EdgeRouter;
  readonly clock: Clock;
  readonly platformHost: string;
  readonly platformDomain: string;
  readonly driftGraceSeconds: number;
  readonly onCertificateDelayed?: (domain: string) => void;
}

/** A task of an attempt that a newer Verify replaced does nothing; the flow then ends. */
const STALE = { stale: true } as const;

/** The domain flow's tasks (docs/contributors/architecture.md): each records its outcome, guarded by the attempt. */
export function createFlowTasks(deps: FlowTaskDeps) {
  const now = () => nowIso(deps.clock);

  async function current(input: FlowInput): Promise<{ record: DomainRecord; project: ProjectRecord } | undefined> {
    const record = await deps.domains.get(input.domain);
    if (!record || record.attempt !== input.attempt || record.state === 'removed') return undefined;
    const project = await deps.projects.get(record.projectId);
    if (!project) throw new Error(`project ${record.projectId} of ${record.domain} is missing`);
    return { record, project };
  }

  const update = (input: FlowInput, changes: Partial<DomainRecord>) =>
    deps.domains.update(input.domain, { ...changes, updatedAt: now() }, input.attempt);

  const check = (record: DomainRecord) =>
    verifyDns(normaliseDomain(record.domain, deps.platformDomain), expectationOf(record, deps.platformHost, 'verify'), deps.dns);

  return {
    async verifyDns(input: FlowInput): Promise<{ verified: boolean }> {
      const found = await current(input);
      if (!found) return { verified: false, ...STALE };
      const { record } = found;
      const result = await check(record);
      if (result.verified) {
        // The history a later claimant of this name (or of a subdomain) is checked against.
        const verifiedBy = [...new Set([...(record.verifiedBy ?? []), record.accountId])];
        await update(input, { state: 'issuing_certificate', verifiedAt: now(), verifiedBy, failure: undefined, misconfiguration: undefined });
        return { verified: true };
      }
      const { reason, observed, expected, detail } = result;
      if (isLive(record)) {
        // A live domain keeps serving: a failed Re-verify is drift, with its grace period (kept from an earlier finding).
        const since = record.misconfiguration?.since ?? now();
        const detachAt = new Date(Date.parse(since) + deps.driftGraceSeconds * 1000).toISOString();
        const misconfiguration = { reason, observed, expected, detail, since, detachAt, checkedAt: now() };
        await update(input, { state: 'dns_misconfigured', misconfiguration });
        return { verified: false };
      }
      await update(input, { state: 'dns_failed', failure: { reason, observed, expected, detail } });
      return { verified: false };
    },

    async requestCertificate(input: FlowInput): Promise<{ status: string; watchdogExpired: boolean }> {
      const found = await current(input);
      if (!found) return { status: 'failed', watchdogExpired: false, ...STALE };
      await deps.certificates.request(found.record, found.project);
      return { status: 'pending', watchdogExpired: false };
    },

    async checkCertificate(input: FlowInput): Promise<CertificateStatus & { watchdogExpired: boolean }> {
      const found = await current(input);
      if (!found) return { status: 'failed', reason: 'superseded by a newer attempt', watchdogExpired: false };
      const status = await deps.certificates.status(found.record, found.project);
      const watchdogMs = (input.watchdogSeconds ?? DOMAIN_FLOW_DEFAULTS.watchdogSeconds) * 1000;
      const verifiedAt = found.record.verifiedAt ? Date.parse(found.record.verifiedAt) : deps.clock.now();
      return { ...status, watchdogExpired: deps.clock.now() - verifiedAt >= watchdogMs };
    },

    async activate(input: FlowInput): Promise<{ state: string }> {
      const found = await current(input);
      if (!found) return { state: 'stale' };
      const { record, project } = found;
      const redirect = project.domains.redirects.find((r) => r.from === record.domain);
      if (redirect) await deps.edge.redirect(record.domain, redirect.to, redirect.status);
      else if (project.liveDeployId) {
        await deps.edge.serve(record.domain, deployPrefix(project.projectId, project.liveDeployId));
      }
      await update(input, { state: 'active', activeAt: now(), diagnosis: undefined, misconfiguration: undefined });
      return { state: 'active' };
    },

    /** 30 minutes without a certificate (or a failed issuance): why, in the owner's terms. */
    async diagnose(input: FlowInput): Promise<{ state: string }> {
      const found = await current(input);
      if (!found) return { state: 'stale' };
      const dns = await check(found.record);
      const caa = await diagnoseCaa(found.record.domain, deps.dns);
      // The Cause of a caught error may hold internal details: the owner sees only its name.
      const failure = input.error
        ? `The certificate request stopped on an unexpected error (${input.error.Error ?? 'unknown'}). ` +
        'Nothing is wrong on your side if DNS still verifies: press Re-verify to try again.'
        : input.certificate?.status === 'failed' ? input.certificate.reason : undefined;
      const blocking = caa.allowed ? undefined : caa.records.find((r) => r.tag.toLowerCase() === 'issue') ?? caa.records[0];
      const diagnosis: DomainDiagnosis = {
        dnsStillVerifies: dns.verified,
        ...(dns.verified ? {} : { dnsDetail: dns.detail }),
        caaAllowsAmazon: caa.allowed,
        ...(caa.allowed
          ? {}
          : {
              caaRecord: blocking ? `${caa.foundAt} CAA ${blocking.critical} ${blocking.tag} "${blocking.value}"` : undefined,
              caaFoundAt: caa.foundAt,
              caaDetail: caa.detail,
            }),
        ...(failure ? { certificateFailure: failure } : {}),
        checkedAt: now(),
      };
      await update(input, { state: 'certificate_delayed', diagnosis });
      deps.onCertificateDelayed?.(found.record.domain);
      return { state: 'certificate_delayed' };
    },
  };
}

export type FlowTasks = ReturnType<typeof createFlowTasks>;
