import type { ProjectRecord } from '../projects/index.js';
import type { DomainRecord, DomainState, PendingRelease } from './domain-record.js';

/** What a conditional update expects of the stored record (all given fields must still hold). */
export interface DomainExpectation {
  /** The attempt: a newer Verify wins over an older attempt's writes. */
  readonly attempt?: number;
  readonly state?: DomainState;
  /** The claim (its createdAt): a name removed and added again is another claim. */
  readonly createdAt?: string;
}

/** One page of the live domains (the drift check's walk over the table). */
export interface LiveDomainsPage {
  readonly records: readonly DomainRecord[];
  /** Where the next page starts; absent after the last one. */
  readonly cursor?: string;
}

export interface DomainStore {
  /**
   * Claims a domain for a project: succeeds when no record exists or the existing one is
   * `removed`, whose `verifiedBy` history the new record inherits. Returns undefined when
   * claimed, or the live record that holds the name.
   */
  claim(record: DomainRecord): Promise<DomainRecord | undefined>;
  get(domain: string): Promise<DomainRecord | undefined>;
  listByProject(projectId: string): Promise<DomainRecord[]>;
  /**
   * Applies `changes` if the record still matches `expected` (a number is the attempt: a newer
   * Verify wins). Returns whether it applied.
   */
  update(domain: string, changes: Partial<Omit<DomainRecord, 'domain'>>, expected?: number | DomainExpectation): Promise<boolean>;
  /** Live domains (served at the edge, see isLive), a page at a time, in no set order. */
  liveDomains(cursor: string | undefined, pageSize: number): Promise<LiveDomainsPage>;
  /** Removed domains whose release has not been started yet (`pendingRelease`), at most `limit`. */
  pendingReleases(limit: number): Promise<DomainRecord[]>;
}

/**
 * What the edge does per host name (the CloudFront Function's KeyValueStore): serve a deploy,
 * redirect in one hop, or refuse. Writes take effect on the next request.
 */
export interface EdgeRouter {
  serve(host: string, prefix: string): Promise<void>;
  redirect(host: string, to: string, status: number): Promise<void>;
  refuse(host: string): Promise<void>;
}

/**
 * Clean-up of the edge's KeyValueStore after a removal. A removed domain's refusal is needed only
 * while CloudFront still routes the host to the distribution (and runs the viewer-request function
 * for it). Once no tenant holds the name, CloudFront answers for the host itself before any function
 * runs: a request for a name associated with no distribution gets CloudFront's own 403 ("HTTP 403
 * status code (Permission Denied)": alternate CNAME not configured), and there is no certificate for
 * it either. The entry would then only use up the store's fixed 5 MB.
 */
export interface EdgeCleanup {
  /**
   * Deletes the host's entry if it is still exactly the refusal (EDGE_VALUE.removed()) and
   * `stillRemoved()` holds when checked after reading it; a write in between (a re-added domain
   * going live) makes the delete fail and the check run again. Returns whether it deleted.
   */
  forgetRefusal(host: string, stillRemoved: () => Promise<boolean>): Promise<boolean>;
}

export type CertificateStatus =
  | { readonly status: 'issued' } |
  { readonly status: 'pending' } |
  { readonly status: 'failed'; readonly reason: string };

/** Who held a domain on which tenant: enough to name the tenant (per domain, or per project slug). */
export interface TenantClaim {
  readonly domain: string;
  readonly projectId: string;
  readonly slug: string;
}

/**
 * One step of releasing a removed domain's tenant: `released` (the domain is off its tenant and the
 * tenant is deleted when it was the last one), `pending` (the tenant is disabled and serves nothing,
 * but CloudFront refuses the delete until the disable has deployed: try again later), or `kept` (the
 * domain was claimed again on that very tenant, which now belongs to the new claim).
 */
export type ReleaseOutcome = 'released' | 'pending' | 'kept';

/**
 * The certificate side of a custom domain: on AWS, the project's CloudFront distribution tenant
 * with a CloudFront-managed certificate (HTTP validation); locally, a simulation.
 */
export interface CertificateAuthority {
  /** Adds the domain to the project's tenant and requests its certificate (idempotent). */
  request(domain: DomainRecord, project: ProjectRecord): Promise<void>;
  status(domain: DomainRecord, project: ProjectRecord): Promise<CertificateStatus>;
  /**
   * Takes a removed domain off its tenant, disabling and deleting the tenant with its last domain.
   * `current()` answers the domain's live claim now (undefined when it is removed); it is asked
   * after each read of the tenant and before any write, so a domain added again in the meantime
   * keeps its tenant. Idempotent: call it again until it is not `pending`.
   */
  release(released: TenantClaim, current: () => Promise<TenantClaim | undefined>): Promise<ReleaseOutcome>;
}

/** What a removal hands to the asynchronous release of the domain's tenant. */
export interface TenantReleaseRequest extends TenantClaim, PendingRelease {}

/** Starts the domain flow (Step Functions on AWS, aws-local-stepfunctions locally). */
export interface DomainFlowStarter {
  start(input: { domain: string; attempt: number }): Promise<void>;
  /** Starts the release of a removed domain's tenant (the same state machine, its release branch). */
  release(input: TenantReleaseRequest): Promise<void>;
  /** Starts a drift check of every live domain (the same state machine, its drift branch); returns the execution's name. */
  checkDrift(): Promise<{ readonly execution: string }>;
}
