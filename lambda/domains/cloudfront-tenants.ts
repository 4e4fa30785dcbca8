import { createHash } from 'node:crypto';
import {
  type CloudFrontClient,
  CreateDistributionTenantCommand,
  DeleteDistributionTenantCommand,
  type DistributionTenant,
  GetDistributionTenantCommand,
  GetManagedCertificateDetailsCommand,
  type ManagedCertificateDetails,
  type ManagedCertificateRequest,
  UpdateDistributionTenantCommand,
} from '@aws-sdk/client-cloudfront';
import type { ProjectRecord } from '../projects/index.js';
import { type BackoffPolicy, type Pacing, REAL_PACING, withBackoff } from '../shared/backoff.js';

/*
 * Quotas and rules the tenant adapters are designed around (checked in the CloudFront docs):
 *
 * - Domains per distribution tenant: the API reference of UpdateDistributionTenant says "Each
 *   distribution tenant can have up to 5 domains"; the Quotas page ("Quotas on multi-tenant
 *   distributions") lists "Maximum number of aliases per distribution tenant: 100", adjustable.
 *   The adapter enforces the stricter 5 (`maxDomainsPerTenant`) and throws DomainLimitError before
 *   calling AWS; an EntityLimitExceeded from UpdateDistributionTenant becomes DomainLimitError too.
 *   The domain is not added anywhere: the flow fails with that message and the owner must remove a
 *   domain of the project first (or the operator raises the option after a quota increase).
 * - Distribution tenants per AWS account: 10,000 (adjustable); multi-tenant distributions per
 *   account: 20; connection groups per account: 100. Tenants per distribution: no separate quota
 *   is documented, the account quota applies. CreateDistributionTenant's EntityLimitExceeded
 *   becomes TenantLimitError. A disabled tenant still counts, so a removal deletes it (release).
 * - DeleteDistributionTenant refuses an enabled tenant, and one whose disable has not deployed yet
 *   (ResourceNotDisabled): deletion is retried by the release branch of the domain flow.
 * - One pending certificate request per tenant ("Request certificates for your CloudFront
 *   distribution tenant": "You can only have one pending certificate request per distribution
 *   tenant"). With one tenant per project, a second domain cannot get its certificate requested
 *   while the first one's is pending: request() throws CertificateRequestBusyError (a retryable
 *   error name for the flow's Retry) instead of touching the tenant.
 * - A tenant's managed certificate covers all its domains, and a new one replaces the old one.
 *   With `tenancy: 'domain'` every domain gets its own tenant and certificate, which removes the
 *   pending-request contention and the coupling of renewals between a project's domains, at the
 *   cost of one tenant per domain against the 10,000 quota.
 * - Tenant names: "[a-zA-Z0-9][a-zA-Z0-9-.]{1,126}[a-zA-Z0-9]", unique in the account, immutable.
 */
export const TENANT_QUOTAS = {
  /** UpdateDistributionTenant API reference ("up to 5 domains"); the Quotas page says 100, adjustable. */
  domainsPerTenant: 5,
  /** Quotas on multi-tenant distributions: distribution tenants per AWS account (adjustable). */
  tenantsPerAccount: 10_000,
} as const;

/** Retries of a tenant write that lost a race (stale ETag, a concurrent create or delete of the same tenant). */
export const TENANT_WRITE: BackoffPolicy = { maxAttempts: 5, baseMs: 500, capMs: 5_000 };

/** HTTP validation served by CloudFront itself: the customer's CNAME/ALIAS is the only record. */
export const MANAGED_CERTIFICATE_REQUEST: ManagedCertificateRequest = { ValidationTokenHost: 'cloudfront' };

const TENANT_NAME = /^[a-zA-Z0-9][a-zA-Z0-9.-]{1,126}[a-zA-Z0-9]$/;

/** How domains map to distribution tenants: one per project (its slug), or one per domain. */
export type Tenancy = 'project' | 'domain';

/** The tenant name of a domain: `project-<slug>`, or `domain-<domain>` (hashed when too long). */
export function tenantName(tenancy: Tenancy, domain: string, project: Pick<ProjectRecord, 'slug'>): string {
  let name: string;
  if (tenancy === 'project') {
    name = `project-${project.slug}`;
  } else {
    name = `domain-${domain}`;
    if (name.length > 128) name = `domain-${domain.slice(0, 103)}-${createHash('sha256').update(domain).digest('hex').slice(0, 16)}`;
  }
  if (!TENANT_NAME.test(name)) throw new Error(`Cannot name a CloudFront distribution tenant ${JSON.stringify(name)}`);
  return name;
}

export class DomainLimitError extends Error {
  constructor(readonly domain: string, readonly tenant: string, readonly limit: number, cause?: unknown) {
    super(
      `${domain} cannot be added: CloudFront distribution tenant ${tenant} already has ${limit} domains, the most a tenant can have. Remove one of the project's domains first.`,
      { cause },
    );
    this.name = 'DomainLimitError';
  }
}

export class TenantLimitError extends Error {
  constructor(readonly tenant: string, cause: unknown) {
    super(
      `CloudFront refused to create distribution tenant ${tenant} (EntityLimitExceeded): the account's distribution tenants quota (${TENANT_QUOTAS.tenantsPerAccount.toLocaleString('en-US')} by default) is reached. Request an increase, then verify the domain again.`,
      { cause },
    );
    this.name = 'TenantLimitError';
  }
}

/** Retryable: the tenant's only pending certificate request is another domain's. */
export class CertificateRequestBusyError extends Error {
  constructor(readonly domain: string, readonly tenant: string, readonly pending: readonly string[]) {
    super(
      `The certificate for ${domain} cannot be requested yet: distribution tenant ${tenant} has a pending certificate request${pending.length ? ` (${pending.join(', ')})` : ''}, and CloudFront allows one at a time. Retry when it completes.`,
    );
    this.name = 'CertificateRequestBusyError';
  }
}

export class DomainInUseError extends Error {
  constructor(readonly domain: string, cause: unknown) {
    super(
      `CloudFront refused ${domain} (CNAMEAlreadyExists): the domain is associated with another CloudFront distribution or tenant, possibly in another AWS account. It must be removed there first.`,
      { cause },
    );
    this.name = 'DomainInUseError';
  }
}

export class TenantConflictError extends Error {
  constructor(readonly tenant: string, detail: string) {
    super(`CloudFront distribution tenant ${tenant} is not this project's: ${detail}`);
    this.name = 'TenantConflictError';
  }
}

export interface CloudFrontTenantsOptions {
  /** With the management-plane retries (MANAGEMENT_PLANE in lambda/shared/aws-clients.ts): throttles are the SDK's to retry. */
  readonly cloudfront: CloudFrontClient;
  /** The multi-tenant distribution (DOMAIN_ENV.distributionId). */
  readonly distributionId: string;
  /** The connection group whose routing endpoint the platform host points at (DOMAIN_ENV.connectionGroupId). */
  readonly connectionGroupId: string;
  /** @default 'project' (one tenant per project, named from its slug) */
  readonly tenancy?: Tenancy;
  /** @default TENANT_QUOTAS.domainsPerTenant (5) */
  readonly maxDomainsPerTenant?: number;
  /** @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** @default Math.random */
  readonly random?: () => number;
}

export interface TenantVersion {
  readonly tenant: DistributionTenant & { readonly Id: string };
  readonly etag: string;
}

/** The settings an update sets; the connection group and parameters are sent back as read. */
export interface TenantChange {
  readonly domains: readonly string[];
  /** Send a ManagedCertificateRequest (a new certificate covering `domains`). */
  readonly certificate: boolean;
  readonly enabled: boolean;
  /** @default the tenant's customizations as read */
  readonly customizations?: DistributionTenant['Customizations'];
}

export const errorName = (error: unknown): string | undefined => (error as { name?: string } | undefined)?.name;
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
/** A write that lost to another writer of the same tenant: re-read and decide again. */
const RACES = new Set(['PreconditionFailed', 'EntityAlreadyExists', 'EntityNotFound']);

/**
 * The distribution tenants of the multi-tenant distribution, as the certificate adapters use them:
 * the client's SDK retries cover throttling; writes carry the ETag of the read they are based on,
 * and `racing` re-runs a read-modify-write that lost a race.
 */
export class CloudFrontTenants {
  readonly tenancy: Tenancy;
  readonly maxDomains: number;
  readonly pacing: Pacing;

  constructor(private readonly options: CloudFrontTenantsOptions) {
    this.pacing = { sleep: options.sleep ?? REAL_PACING.sleep, random: options.random ?? REAL_PACING.random };
    this.tenancy = options.tenancy ?? 'project';
    this.maxDomains = options.maxDomainsPerTenant ?? TENANT_QUOTAS.domainsPerTenant;
  }

  name(domain: string, project: Pick<ProjectRecord, 'slug'>): string {
    return tenantName(this.tenancy, domain, project);
  }

  /**
   * The tenant and its ETag, or undefined when there is none. Refuses another distribution's tenant,
   * and (per-project tenancy) a tenant tagged for another project than `projectId`.
   */
  async read(name: string, projectId?: string): Promise<TenantVersion | undefined> {
    let out;
    try {
      out = await this.options.cloudfront.send(new GetDistributionTenantCommand({ Identifier: name }));
    } catch (error) {
      if (errorName(error) === 'EntityNotFound') return undefined;
      throw error;
    }
    const tenant = out.DistributionTenant;
    if (!tenant?.Id || !out.ETag) throw new Error(`GetDistributionTenant ${name} returned no tenant id or ETag`);
    if (tenant.DistributionId && tenant.DistributionId !== this.options.distributionId) {
      throw new TenantConflictError(name, `it belongs to distribution ${tenant.DistributionId}, not ${this.options.distributionId}`);
    }
    const owner = tenant.Tags?.Items?.find((t) => t.Key === 'projectId')?.Value;
    if (projectId && this.tenancy === 'project' && owner !== undefined && owner !== projectId) {
      throw new TenantConflictError(name, `it is tagged for project ${owner}, not ${projectId}`);
    }
    return { tenant: { ...tenant, Id: tenant.Id }, etag: out.ETag };
  }

  async create(name: string, domain: string, projectId: string): Promise<void> {
    try {
      await this.options.cloudfront.send(
        new CreateDistributionTenantCommand({
          DistributionId: this.options.distributionId,
          Name: name,
          Domains: [{ Domain: domain }],
          ConnectionGroupId: this.options.connectionGroupId,
          ManagedCertificateRequest: MANAGED_CERTIFICATE_REQUEST,
          Enabled: true,
          Tags: { Items: [{ Key: 'projectId', Value: projectId }] },
        }),
      );
    } catch (error) {
      if (errorName(error) === 'EntityLimitExceeded') throw new TenantLimitError(name, error);
      if (errorName(error) === 'CNAMEAlreadyExists') throw new DomainInUseError(domain, error);
      throw error;
    }
  }

  /**
   * UpdateDistributionTenant replaces the tenant's settings: the connection group, customizations
   * and parameters are sent back as read. Returns the new ETag. `domain` (the one being added) turns
   * CloudFront's refusals into the errors that name it.
   */
  async update(current: TenantVersion, change: TenantChange, domain?: string): Promise<string> {
    const { tenant } = current;
    const customizations = change.customizations ?? tenant.Customizations;
    try {
      const out = await this.options.cloudfront.send(
        new UpdateDistributionTenantCommand({
          Id: tenant.Id,
          IfMatch: current.etag,
          DistributionId: this.options.distributionId,
          Domains: change.domains.map((d) => ({ Domain: d })),
          ConnectionGroupId: tenant.ConnectionGroupId ?? this.options.connectionGroupId,
          ...(customizations ? { Customizations: customizations } : {}),
          ...(tenant.Parameters?.length ? { Parameters: tenant.Parameters } : {}),
          ...(change.certificate ? { ManagedCertificateRequest: MANAGED_CERTIFICATE_REQUEST } : {}),
          Enabled: change.enabled,
        }),
      );
      return out.ETag ?? current.etag;
    } catch (error) {
      if (domain && errorName(error) === 'EntityLimitExceeded') throw new DomainLimitError(domain, tenant.Name ?? tenant.Id, this.maxDomains, error);
      if (domain && errorName(error) === 'CNAMEAlreadyExists') throw new DomainInUseError(domain, error);
      throw error;
    }
  }

  /**
   * One delete of a disabled tenant: `deleted` (also when it is gone already), or `pending` while
   * CloudFront still deploys the disable (ResourceNotDisabled). A stale ETag is thrown (a race).
   */
  async delete(version: TenantVersion): Promise<'deleted' | 'pending'> {
    const { tenant: { Id }, etag } = version;
    try {
      await this.options.cloudfront.send(new DeleteDistributionTenantCommand({ Id, IfMatch: etag }));
      return 'deleted';
    } catch (error) {
      if (errorName(error) === 'EntityNotFound') return 'deleted';
      if (errorName(error) === 'ResourceNotDisabled') return 'pending';
      throw error;
    }
  }

  async certificate(tenantId: string): Promise<ManagedCertificateDetails | undefined> {
    try {
      const out = await this.options.cloudfront.send(new GetManagedCertificateDetailsCommand({ Identifier: tenantId }));
      return out.ManagedCertificateDetails;
    } catch (error) {
      if (errorName(error) === 'EntityNotFound') return undefined;
      throw error;
    }
  }

  /**
   * Runs one read-modify-write; when it lost a race (stale ETag, the tenant created or deleted by
   * someone else in between) it re-reads and decides again, with jittered backoff, a bounded number
   * of times.
   */
  async racing<T>(run: () => Promise<T>): Promise<T> {
    return withBackoff(run, TENANT_WRITE, (error) => RACES.has(errorName(error) ?? ''), this.pacing);
  }
}

/** The tenant's domains, none when it is disabled (a tenant is disabled only with its last domain released). */
export function live(tenant: DistributionTenant): string[] {
  if (tenant.Enabled === false) return [];
  return (tenant.Domains ?? []).flatMap((d) => (d.Domain ? [d.Domain] : []));
}

/** The domains a managed certificate request covers, as CloudFront lists them (may be empty). */
export function requestedDomains(certificate: ManagedCertificateDetails): string[] {
  return (certificate.ValidationTokenDetails ?? []).flatMap((d) => (d.Domain ? [d.Domain] : []));
}
