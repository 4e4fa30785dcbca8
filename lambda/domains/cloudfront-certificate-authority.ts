import { createHash } from 'node:crypto';
import { type ACMClient, DescribeCertificateCommand } from '@aws-sdk/client-acm';
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
  VerifyDnsConfigurationCommand,
} from '@aws-sdk/client-cloudfront';
import type { ProjectRecord } from '../projects/project.js';
import { type BackoffOptions, withBackoff } from '../keys/api-gateway-usage-plan-gateway.js';
import type { DomainRecord } from './domain-record.js';
import type { CertificateAuthority, CertificateStatus } from './ports.js';

/*
 * Quotas and rules this adapter is designed around (checked in the CloudFront docs):
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
 *   becomes TenantLimitError.
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

/** Retries of a tenant write that lost a race (stale ETag, or a concurrent create of the same tenant). */
export const TENANT_WRITE = { maxAttempts: 5, baseMs: 500, capMs: 5_000 } as const;

/** Deleting a tenant waits for its disable to deploy (ResourceNotDisabled meanwhile). */
export const TENANT_DELETE = { attempts: 3, waitMs: 5_000 } as const;

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

/** The domain is off (the tenant is disabled); deleting the tenant still waits for the disable to deploy. */
export class TenantDeletionPendingError extends Error {
  constructor(readonly tenant: string, cause: unknown) {
    super(
      `Distribution tenant ${tenant} is disabled and serves nothing, but CloudFront is still deploying the change, so it cannot be deleted yet. Call release again later to delete it.`,
      { cause },
    );
    this.name = 'TenantDeletionPendingError';
  }
}

/** ACM DescribeCertificate FailureReason, in words the owner can act on. */
const ACM_FAILURES: Record<string, string> = {
  CAA_ERROR:
    'a CAA record on the domain or one of its parents does not allow Amazon to issue certificates (allow one of amazon.com, amazontrust.com, awstrust.com, amazonaws.com)',
  ADDITIONAL_VERIFICATION_REQUIRED: 'ACM needs additional verification for this domain (AWS Support)',
  DOMAIN_NOT_ALLOWED: 'ACM does not allow a certificate for this domain (for example, it is reported as unsafe)',
  DOMAIN_VALIDATION_DENIED: 'Amazon is not allowed to issue a certificate for this domain',
  INVALID_PUBLIC_DOMAIN: 'the name is not a valid public domain',
  NO_AVAILABLE_CONTACTS: 'no validation contact was found for the domain',
  OTHER: 'ACM gave no specific reason',
};

export function describeAcmFailure(reason: string): string {
  const text = ACM_FAILURES[reason];
  return text ? `${reason}: ${text}` : reason;
}

export interface CloudFrontCertificateAuthorityOptions {
  /** Create it with `maxAttempts: 1`: throttles are retried here with `withBackoff`. */
  readonly cloudfront: CloudFrontClient;
  /** In us-east-1, where CloudFront's certificates live. `maxAttempts: 1` as above. */
  readonly acm: ACMClient;
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

interface TenantVersion {
  readonly tenant: DistributionTenant & { readonly Id: string };
  readonly etag: string;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const errorName = (error: unknown): string | undefined => (error as { name?: string } | undefined)?.name;
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const failed = (reason: string): CertificateStatus => ({ status: 'failed', reason });

/**
 * The certificate port on CloudFront (design §2, Edge): a distribution tenant of the multi-tenant
 * distribution, created at run time, holds the customer's domains and requests a CloudFront-managed
 * ACM certificate with HTTP validation served by CloudFront (`ValidationTokenHost: 'cloudfront'`),
 * so nothing beyond the CNAME/ALIAS is asked of the owner. A disabled tenant is one whose last
 * domain was released (only release() disables), so its domains count as gone. Every call retries
 * throttles (`withBackoff`); writes use the tenant's ETag and retry a lost race from a fresh read.
 */
export class CloudFrontCertificateAuthority implements CertificateAuthority {
  private readonly backoff: BackoffOptions;
  private readonly tenancy: Tenancy;
  private readonly maxDomains: number;

  constructor(private readonly options: CloudFrontCertificateAuthorityOptions) {
    this.backoff = { sleep: options.sleep ?? defaultSleep, random: options.random ?? Math.random };
    this.tenancy = options.tenancy ?? 'project';
    this.maxDomains = options.maxDomainsPerTenant ?? TENANT_QUOTAS.domainsPerTenant;
  }

  tenantName(domain: string, project: Pick<ProjectRecord, 'slug'>): string {
    return tenantName(this.tenancy, domain, project);
  }

  /**
   * Creates the tenant with the domain and a managed certificate request, or adds the domain to the
   * existing tenant (keeping its domains, customizations and parameters) with a new request that
   * covers them all. Nothing is written when the domain is already there with a certificate that is
   * issued or pending for it; a failed or expired certificate is requested again (re-verify).
   */
  async request(domain: DomainRecord, project: ProjectRecord): Promise<void> {
    const name = this.tenantName(domain.domain, project);
    await this.racing(() => this.requestOnce(name, domain.domain, project));
  }

  /**
   * issued: the domain is active on the tenant (CloudFront serves it with a valid certificate).
   * pending: the managed certificate is pending validation, or issued and the domain not active yet;
   * when it is issued but not the tenant's certificate, this attaches it once (see attach).
   * failed: any other certificate status, with ACM's FailureReason (e.g. CAA_ERROR) and
   * CloudFront's own DNS check in the reason; or the domain is not on its tenant at all.
   */
  async status(domain: DomainRecord, project: ProjectRecord): Promise<CertificateStatus> {
    const name = this.tenantName(domain.domain, project);
    const current = await this.read(name, project);
    const entry = current && live(current.tenant).includes(domain.domain)
      ? current.tenant.Domains?.find((d) => d.Domain === domain.domain)
      : undefined;
    if (!current || !entry) {
      return failed(`${domain.domain} is not on CloudFront distribution tenant ${name}; verify the domain again to request its certificate`);
    }
    if (entry.Status === 'active') return { status: 'issued' };
    const certificate = await this.certificate(current.tenant.Id);
    if (!certificate?.CertificateStatus) {
      return failed(`CloudFront has no managed certificate request for ${domain.domain} (tenant ${name}); verify the domain again`);
    }
    const requested = requestedDomains(certificate);
    const covered = requested.length === 0 || requested.includes(domain.domain);
    switch (certificate.CertificateStatus) {
      case 'pending-validation':
        return covered
          ? { status: 'pending' }
          : failed(`the pending certificate request of tenant ${name} covers ${requested.join(', ')} but not ${domain.domain}; verify the domain again when it completes`);
      case 'issued':
        if (!covered) return failed(`the certificate of tenant ${name} does not cover ${domain.domain}; verify the domain again`);
        try {
          await this.attach(current, certificate.CertificateArn);
        } catch (error) {
          if (errorName(error) !== 'InvalidArgument') throw error;
          return failed(`the certificate is issued, but CloudFront refused to attach it to tenant ${name}: ${messageOf(error)}`);
        }
        return { status: 'pending' };
      default:
        return failed(await this.failureReason(domain.domain, current.tenant.Id, certificate));
    }
  }

  /**
   * Takes the domain off its tenant. When it is the tenant's last domain (a tenant needs at least
   * one), the tenant is disabled and then deleted; CloudFront refuses to delete a tenant whose
   * disable is still deploying, so after TENANT_DELETE attempts this throws
   * TenantDeletionPendingError (the domain is off already; release again to finish).
   */
  async release(domain: DomainRecord, project: ProjectRecord): Promise<void> {
    const name = this.tenantName(domain.domain, project);
    await this.racing(() => this.releaseOnce(name, domain.domain, project));
  }

  private async requestOnce(name: string, domain: string, project: ProjectRecord): Promise<void> {
    const current = await this.read(name, project);
    if (!current) return this.create(name, domain, project);
    const domains = live(current.tenant);
    if (domains.includes(domain)) {
      if (current.tenant.Domains?.find((d) => d.Domain === domain)?.Status === 'active') return;
      const certificate = await this.certificate(current.tenant.Id);
      const status = certificate?.CertificateStatus;
      const requested = certificate ? requestedDomains(certificate) : [];
      const covered = requested.length === 0 || requested.includes(domain);
      if (covered && (status === 'pending-validation' || status === 'issued')) return;
      if (status === 'pending-validation') throw new CertificateRequestBusyError(domain, name, requested);
      await this.update(current, { domains, certificate: true, enabled: true }, domain);
      return;
    }
    if (domains.length >= this.maxDomains) throw new DomainLimitError(domain, name, this.maxDomains);
    if (domains.length > 0) {
      const certificate = await this.certificate(current.tenant.Id);
      if (certificate?.CertificateStatus === 'pending-validation') {
        throw new CertificateRequestBusyError(domain, name, requestedDomains(certificate));
      }
    }
    await this.update(current, { domains: [...domains, domain], certificate: true, enabled: true }, domain);
  }

  private async releaseOnce(name: string, domain: string, project: ProjectRecord): Promise<void> {
    const current = await this.read(name, project);
    if (!current) return;
    if (current.tenant.Enabled === false) return this.delete(name, current);
    const domains = live(current.tenant);
    if (!domains.includes(domain)) return;
    const rest = domains.filter((d) => d !== domain);
    if (rest.length > 0) {
      await this.update(current, { domains: rest, certificate: false, enabled: true }, domain);
      return;
    }
    const etag = await this.update(current, { domains, certificate: false, enabled: false }, domain);
    await this.delete(name, { tenant: { ...current.tenant, Enabled: false }, etag });
  }

  private async create(name: string, domain: string, project: ProjectRecord): Promise<void> {
    try {
      await this.call(() =>
        this.options.cloudfront.send(
          new CreateDistributionTenantCommand({
            DistributionId: this.options.distributionId,
            Name: name,
            Domains: [{ Domain: domain }],
            ConnectionGroupId: this.options.connectionGroupId,
            ManagedCertificateRequest: MANAGED_CERTIFICATE_REQUEST,
            Enabled: true,
            Tags: { Items: [{ Key: 'projectId', Value: project.projectId }] },
          }),
        ),
      );
    } catch (error) {
      if (errorName(error) === 'EntityLimitExceeded') throw new TenantLimitError(name, error);
      if (errorName(error) === 'CNAMEAlreadyExists') throw new DomainInUseError(domain, error);
      throw error;
    }
  }

  /**
   * UpdateDistributionTenant replaces the tenant's settings: the connection group, customizations
   * and parameters are sent back as read. Returns the new ETag.
   */
  private async update(
    current: TenantVersion,
    change: { domains: readonly string[]; certificate: boolean; enabled: boolean; customizations?: DistributionTenant['Customizations'] },
    domain?: string,
  ): Promise<string> {
    const { tenant } = current;
    const customizations = change.customizations ?? tenant.Customizations;
    try {
      const out = await this.call(() =>
        this.options.cloudfront.send(
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
        ),
      );
      return out.ETag ?? current.etag;
    } catch (error) {
      if (domain && errorName(error) === 'EntityLimitExceeded') throw new DomainLimitError(domain, tenant.Name ?? tenant.Id, this.maxDomains, error);
      if (domain && errorName(error) === 'CNAMEAlreadyExists') throw new DomainInUseError(domain, error);
      throw error;
    }
  }

  /**
   * The hand-off after issuance. CloudFront documents no automatic attachment of the issued managed
   * certificate to the tenant (a third-party operator, cloudfront-tenant-operator, attaches it
   * through Customizations.Certificate), so when it is issued and the domain is still inactive, the
   * tenant gets it as its certificate, once: a tenant that already has that ARN is left alone. A
   * lost race is left to the next status check; a refusal (InvalidArgument) becomes a failed status.
   */
  private async attach(current: TenantVersion, certificateArn: string | undefined): Promise<void> {
    if (!certificateArn || current.tenant.Customizations?.Certificate?.Arn === certificateArn) return;
    try {
      await this.update(
        current,
        {
          domains: live(current.tenant),
          certificate: false,
          enabled: true,
          customizations: { ...current.tenant.Customizations, Certificate: { Arn: certificateArn } },
        },
      );
    } catch (error) {
      if (errorName(error) !== 'PreconditionFailed') throw error;
    }
  }

  private async delete(name: string, version: TenantVersion): Promise<void> {
    let current = version;
    for (let attempt = 1; ; attempt++) {
      try {
        const { tenant: { Id }, etag } = current;
        await this.call(() => this.options.cloudfront.send(new DeleteDistributionTenantCommand({ Id, IfMatch: etag })));
        return;
      } catch (error) {
        const code = errorName(error);
        if (code === 'EntityNotFound') return;
        if (code !== 'ResourceNotDisabled' && code !== 'PreconditionFailed') throw error;
        if (attempt >= TENANT_DELETE.attempts) throw new TenantDeletionPendingError(name, error);
        await this.backoff.sleep(TENANT_DELETE.waitMs);
        const again = await this.read(name);
        if (!again) return;
        current = again;
      }
    }
  }

  private async failureReason(
    domain: string,
    tenantId: string,
    certificate: ManagedCertificateDetails,
  ): Promise<string> {
    const parts = [`the CloudFront-managed certificate is ${certificate.CertificateStatus ?? 'in an unknown state'}`];
    if (certificate.CertificateArn) {
      const certificateArn = certificate.CertificateArn;
      try {
        const { Certificate: acm } = await this.call(() =>
          this.options.acm.send(new DescribeCertificateCommand({ CertificateArn: certificateArn })),
        );
        if (acm?.FailureReason) parts.push(`ACM: ${describeAcmFailure(acm.FailureReason)}`);
        const validation = acm?.DomainValidationOptions?.find((o) => o.DomainName === domain);
        if (validation?.ValidationStatus === 'FAILED') parts.push(`validation of ${domain} failed`);
      } catch (error) {
        parts.push(`ACM DescribeCertificate failed: ${messageOf(error)}`);
      }
    }
    try {
      const { DnsConfigurationList: checks } = await this.call(() =>
        this.options.cloudfront.send(new VerifyDnsConfigurationCommand({ Identifier: tenantId, Domain: domain })),
      );
      const check = checks?.find((c) => c.Domain === domain);
      if (check?.Status) parts.push(`CloudFront DNS check: ${check.Status}${check.Reason ? ` (${check.Reason})` : ''}`);
    } catch (error) {
      parts.push(`CloudFront VerifyDnsConfiguration failed: ${messageOf(error)}`);
    }
    return parts.join('; ');
  }

  /** The tenant and its ETag, or undefined when there is none; refuses another distribution's or project's tenant. */
  private async read(name: string, project?: ProjectRecord): Promise<TenantVersion | undefined> {
    let out;
    try {
      out = await this.call(() => this.options.cloudfront.send(new GetDistributionTenantCommand({ Identifier: name })));
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
    if (project && this.tenancy === 'project' && owner !== undefined && owner !== project.projectId) {
      throw new TenantConflictError(name, `it is tagged for project ${owner}, not ${project.projectId}`);
    }
    return { tenant: { ...tenant, Id: tenant.Id }, etag: out.ETag };
  }

  private async certificate(tenantId: string): Promise<ManagedCertificateDetails | undefined> {
    try {
      const out = await this.call(() =>
        this.options.cloudfront.send(new GetManagedCertificateDetailsCommand({ Identifier: tenantId })),
      );
      return out.ManagedCertificateDetails;
    } catch (error) {
      if (errorName(error) === 'EntityNotFound') return undefined;
      throw error;
    }
  }

  /** Runs one read-modify-write; a stale ETag or a concurrent create of the same tenant re-reads and retries. */
  private async racing(run: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        const race = errorName(error) === 'PreconditionFailed' || errorName(error) === 'EntityAlreadyExists';
        if (!race || attempt >= TENANT_WRITE.maxAttempts) throw error;
        const stepMs = Math.min(TENANT_WRITE.capMs, TENANT_WRITE.baseMs * 2 ** (attempt - 1));
        await this.backoff.sleep(Math.round(this.backoff.random() * stepMs));
      }
    }
  }

  private call<T>(send: () => Promise<T>): Promise<T> {
    return withBackoff(send, this.backoff);
  }
}

/** The tenant's domains, none when it is disabled (release() disables a tenant only with its last domain). */
function live(tenant: DistributionTenant): string[] {
  if (tenant.Enabled === false) return [];
  return (tenant.Domains ?? []).flatMap((d) => (d.Domain ? [d.Domain] : []));
}

/** The domains a managed certificate request covers, as CloudFront lists them (may be empty). */
function requestedDomains(certificate: ManagedCertificateDetails): string[] {
  return (certificate.ValidationTokenDetails ?? []).flatMap((d) => (d.Domain ? [d.Domain] : []));
}
