import type { ProjectRecord } from '../projects/index.js';
import type { DomainRecord, DomainState, PendingRelease } from './domain-record.js';

/** What a conditional update expects of the stored record; `createdAt` tells claims of a name apart. */
export interface DomainExpectation {
  readonly attempt?: number;
  readonly state?: DomainState;
  readonly createdAt?: string;
}

export interface LiveDomainsPage {
  readonly records: readonly DomainRecord[];
  /** Absent after the last page. */
  readonly cursor?: string;
}

export interface DomainStore {
  /** Claims a free or `removed` name (inheriting its `verifiedBy`); else returns the record holding it. */
  claim(record: DomainRecord): Promise<DomainRecord | undefined>;
  get(domain: string): Promise<DomainRecord | undefined>;
  listByProject(projectId: string): Promise<DomainRecord[]>;
  /** Applies `changes` if the record still matches `expected` (a number is the attempt); returns whether it did. */
  update(domain: string, changes: Partial<Omit<DomainRecord, 'domain'>>, expected?: number | DomainExpectation): Promise<boolean>;
  /** Live domains (isLive), a page at a time, in no set order. */
  liveDomains(cursor: string | undefined, pageSize: number): Promise<LiveDomainsPage>;
  /** Removed domains whose release has not been started yet, at most `limit`. */
  pendingReleases(limit: number): Promise<DomainRecord[]>;
}

/** What the edge does per host name: serve a deploy, redirect in one hop, or refuse. */
export interface EdgeRouter {
  serve(host: string, prefix: string): Promise<void>;
  redirect(host: string, to: string, status: number): Promise<void>;
  refuse(host: string): Promise<void>;
}

/** Once no tenant holds a removed name CloudFront answers 403 itself: the refusal entry can go. */
export interface EdgeCleanup {
  /** Deletes the entry if it is still the refusal and `stillRemoved()`; returns whether it did. */
  forgetRefusal(host: string, stillRemoved: () => Promise<boolean>): Promise<boolean>;
}

export type CertificateStatus =
  | { readonly status: 'issued' } |
  { readonly status: 'pending' } |
  { readonly status: 'failed'; readonly reason: string };

/** A claim of a domain, and so of its tenant (one per domain). */
export interface TenantClaim {
  readonly domain: string;
  readonly projectId: string;
}

/** `pending`: disabled, the delete refused until the disable deployed; `kept`: claimed again on that tenant. */
export type ReleaseOutcome = 'released' | 'pending' | 'kept';

/** The certificate side of a custom domain: a CloudFront tenant on AWS, a simulation locally. */
export interface CertificateAuthority {
  /** Adds the domain to its tenant and requests its certificate (idempotent). */
  request(domain: DomainRecord, project: ProjectRecord): Promise<void>;
  status(domain: DomainRecord, project: ProjectRecord): Promise<CertificateStatus>;
  /** One idempotent release step; `current()` is the domain's live claim now, so a re-added one keeps its tenant. */
  release(released: TenantClaim, current: () => Promise<TenantClaim | undefined>): Promise<ReleaseOutcome>;
}

export interface TenantReleaseRequest extends TenantClaim, PendingRelease {}

/** Starts the domain flow's branches (Step Functions on AWS, aws-local-stepfunctions locally). */
export interface DomainFlowStarter {
  start(input: { domain: string; attempt: number }): Promise<void>;
  release(input: TenantReleaseRequest): Promise<void>;
  checkDrift(): Promise<{ readonly execution: string }>;
}
