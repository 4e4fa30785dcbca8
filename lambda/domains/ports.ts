import type { ProjectRecord } from '../projects/project.js';
import type { DomainRecord } from './domain-record.js';

export interface DomainStore {
  /**
   * Claims a domain for a project: succeeds when no record exists or the existing one is
   * `removed`. Returns undefined when claimed, or the live record that holds the name.
   */
  claim(record: DomainRecord): Promise<DomainRecord | undefined>;
  get(domain: string): Promise<DomainRecord | undefined>;
  listByProject(projectId: string): Promise<DomainRecord[]>;
  /** Applies `changes` if the record's attempt is still `expectedAttempt` (a newer Verify wins). */
  update(domain: string, changes: Partial<Omit<DomainRecord, 'domain'>>, expectedAttempt?: number): Promise<boolean>;
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

export type CertificateStatus =
  | { readonly status: 'issued' } |
  { readonly status: 'pending' } |
  { readonly status: 'failed'; readonly reason: string };

/**
 * The certificate side of a custom domain: on AWS, the project's CloudFront distribution tenant
 * with a CloudFront-managed certificate (HTTP validation); locally, a simulation.
 */
export interface CertificateAuthority {
  /** Adds the domain to the project's tenant and requests its certificate (idempotent). */
  request(domain: DomainRecord, project: ProjectRecord): Promise<void>;
  status(domain: DomainRecord, project: ProjectRecord): Promise<CertificateStatus>;
  /** Takes the domain off the project's tenant (removal). */
  release(domain: DomainRecord, project: ProjectRecord): Promise<void>;
}

/** Starts the domain flow (Step Functions on AWS, aws-local-stepfunctions locally). */
export interface DomainFlowStarter {
  start(input: { domain: string; attempt: number }): Promise<void>;
}
