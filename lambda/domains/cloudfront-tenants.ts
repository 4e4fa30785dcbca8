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
import { type BackoffPolicy, type Pacing, REAL_PACING, withBackoff } from '../shared/backoff.js';

/*
 * CloudFront rules the tenant adapters are designed around (quotas: docs/contributors/domain-flow.md):
 * one tenant per domain, since a tenant has one pending certificate request at a time.
 * DeleteDistributionTenant refuses a tenant whose disable has not deployed (ResourceNotDisabled): the
 * release branch retries. Tenant names: "[a-zA-Z0-9][a-zA-Z0-9-.]{1,126}[a-zA-Z0-9]", unique, immutable.
 */
/** Retries of a tenant write that lost a race (stale ETag, a concurrent create or delete of the same tenant). */
const TENANT_WRITE: BackoffPolicy = { maxAttempts: 5, baseMs: 500, capMs: 5_000 };

/** HTTP validation served by CloudFront itself: the customer's CNAME/ALIAS is the only record. */
const MANAGED_CERTIFICATE_REQUEST: ManagedCertificateRequest = { ValidationTokenHost: 'cloudfront' };

const TENANT_NAME = /^[a-zA-Z0-9][a-zA-Z0-9.-]{1,126}[a-zA-Z0-9]$/;

/** One tenant per domain (docs/contributors/domain-flow.md): `domain-<domain>`, hashed when too long. */
export function tenantName(domain: string): string {
  let name = `domain-${domain}`;
  if (name.length > 128) name = `domain-${domain.slice(0, 103)}-${createHash('sha256').update(domain).digest('hex').slice(0, 16)}`;
  if (!TENANT_NAME.test(name)) throw new Error(`Cannot name a CloudFront distribution tenant ${JSON.stringify(name)}`);
  return name;
}

export class TenantLimitError extends Error {
  constructor(readonly tenant: string, cause: unknown) {
    super(
      `CloudFront refused to create distribution tenant ${tenant} (EntityLimitExceeded): the account's distribution tenants quota (10,000 by default) is reached. Request an increase, then verify the domain again.`,
      { cause },
    );
    this.name = 'TenantLimitError';
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
  /** With the management-plane retries: throttles are the SDK's to retry. */
  readonly cloudfront: CloudFrontClient;
  readonly distributionId: string;
  readonly connectionGroupId: string;
  readonly pacing?: Pacing;
}

export interface TenantVersion {
  readonly tenant: DistributionTenant & { readonly Id: string };
  readonly etag: string;
}

/** The settings an update sets; the connection group and parameters are sent back as read. */
interface TenantChange {
  readonly domains: readonly string[];
  readonly certificate: boolean;
  readonly enabled: boolean;
  readonly customizations?: DistributionTenant['Customizations'];
}

export const errorName = (error: unknown): string | undefined => (error as { name?: string } | undefined)?.name;
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
/** A write that lost to another writer of the same tenant: re-read and decide again. */
const RACES = new Set(['PreconditionFailed', 'EntityAlreadyExists', 'EntityNotFound']);

/** The distribution's tenants: writes carry the ETag of their read; `racing` re-runs a lost read-modify-write. */
export class CloudFrontTenants {
  constructor(private readonly options: CloudFrontTenantsOptions) {}

  /** The tenant and its ETag; refuses another distribution's tenant. */
  async read(name: string): Promise<TenantVersion | undefined> {
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

  /** Replaces the tenant's settings (the rest sent back as read); returns the new ETag. `domain` names refusals. */
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
      if (domain && errorName(error) === 'CNAMEAlreadyExists') throw new DomainInUseError(domain, error);
      throw error;
    }
  }

  /** One delete of a disabled tenant: `pending` while CloudFront still deploys the disable. */
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

  async racing<T>(run: () => Promise<T>): Promise<T> {
    const lost = (error: unknown) => RACES.has(errorName(error) ?? '');
    return withBackoff(run, TENANT_WRITE, lost, this.options.pacing ?? REAL_PACING);
  }
}

/** The tenant's domains, none when it is disabled (a tenant is disabled only with its last domain released). */
export function live(tenant: DistributionTenant): string[] {
  if (tenant.Enabled === false) return [];
  return (tenant.Domains ?? []).flatMap((d) => (d.Domain ? [d.Domain] : []));
}
