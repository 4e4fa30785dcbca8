import { type ACMClient, DescribeCertificateCommand } from '@aws-sdk/client-acm';
import { type ManagedCertificateDetails, VerifyDnsConfigurationCommand } from '@aws-sdk/client-cloudfront';
import type { ProjectRecord } from '../projects/index.js';
import { releaseFromTenant } from './cloudfront-tenant-release.js';
import {
  CloudFrontTenants,
  type CloudFrontTenantsOptions,
  errorName,
  live,
  messageOf,
  tenantName,
  type TenantVersion,
} from './cloudfront-tenants.js';
import type { DomainRecord } from './domain-record.js';
import type { CertificateAuthority, CertificateStatus, ReleaseOutcome, TenantClaim } from './ports.js';

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

export interface CloudFrontCertificateAuthorityOptions extends CloudFrontTenantsOptions {
  /** In us-east-1, where CloudFront's certificates live. */
  readonly acm: ACMClient;
}

const failed = (reason: string): CertificateStatus => ({ status: 'failed', reason });

/** The certificate port on CloudFront tenants; only release disables one, so its domains count as gone. */
export class CloudFrontCertificateAuthority implements CertificateAuthority {
  private readonly tenants: CloudFrontTenants;

  constructor(private readonly options: CloudFrontCertificateAuthorityOptions) {
    this.tenants = new CloudFrontTenants(options);
  }

  /** Creates the tenant, or requests a new certificate on it; none while one is issued or pending. */
  async request(domain: DomainRecord, project: ProjectRecord): Promise<void> {
    const name = tenantName(domain.domain);
    await this.tenants.racing(() => this.requestOnce(name, domain.domain, project));
  }

  /** issued once the domain is active on its tenant; failed with ACM's and CloudFront's reasons. */
  async status(domain: DomainRecord): Promise<CertificateStatus> {
    const name = tenantName(domain.domain);
    const current = await this.tenants.read(name);
    const entry = current && live(current.tenant).includes(domain.domain)
      ? current.tenant.Domains?.find((d) => d.Domain === domain.domain)
      : undefined;
    if (!current || !entry) {
      return failed(`${domain.domain} is not on CloudFront distribution tenant ${name}; verify the domain again to request its certificate`);
    }
    if (entry.Status === 'active') return { status: 'issued' };
    const certificate = await this.tenants.certificate(current.tenant.Id);
    if (!certificate?.CertificateStatus) {
      return failed(`CloudFront has no managed certificate request for ${domain.domain} (tenant ${name}); verify the domain again`);
    }
    switch (certificate.CertificateStatus) {
      case 'pending-validation':
        return { status: 'pending' };
      case 'issued':
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

  /** One step of taking a removed domain off its tenant (releaseFromTenant): call again while `pending`. */
  release(released: TenantClaim, current: () => Promise<TenantClaim | undefined>): Promise<ReleaseOutcome> {
    return releaseFromTenant(this.tenants, released, current);
  }

  private async requestOnce(name: string, domain: string, project: ProjectRecord): Promise<void> {
    const current = await this.tenants.read(name);
    if (!current) return this.tenants.create(name, domain, project.projectId);
    if (live(current.tenant).includes(domain)) {
      if (current.tenant.Domains?.find((d) => d.Domain === domain)?.Status === 'active') return;
      const status = (await this.tenants.certificate(current.tenant.Id))?.CertificateStatus;
      if (status === 'pending-validation' || status === 'issued') return;
    }
    // The tenant is this domain's alone: one a removal disabled is enabled again with it.
    await this.tenants.update(current, { domains: [domain], certificate: true, enabled: true }, domain);
  }

  // CloudFront documents no automatic attachment of an issued managed certificate to its tenant,
  // so it is attached once (as cloudfront-tenant-operator does); a lost race waits for the next check.
  private async attach(current: TenantVersion, certificateArn: string | undefined): Promise<void> {
    if (!certificateArn || current.tenant.Customizations?.Certificate?.Arn === certificateArn) return;
    try {
      await this.tenants.update(current, {
        domains: live(current.tenant),
        certificate: false,
        enabled: true,
        customizations: { ...current.tenant.Customizations, Certificate: { Arn: certificateArn } },
      });
    } catch (error) {
      if (errorName(error) !== 'PreconditionFailed') throw error;
    }
  }

  private async failureReason(domain: string, tenantId: string, certificate: ManagedCertificateDetails) {
    const parts = [`the CloudFront-managed certificate is ${certificate.CertificateStatus ?? 'in an unknown state'}`];
    if (certificate.CertificateArn) {
      try {
        const describe = new DescribeCertificateCommand({ CertificateArn: certificate.CertificateArn });
        const { Certificate: acm } = await this.options.acm.send(describe);
        if (acm?.FailureReason) parts.push(`ACM: ${describeAcmFailure(acm.FailureReason)}`);
        const validation = acm?.DomainValidationOptions?.find((o) => o.DomainName === domain);
        if (validation?.ValidationStatus === 'FAILED') parts.push(`validation of ${domain} failed`);
      } catch (error) {
        parts.push(`ACM DescribeCertificate failed: ${messageOf(error)}`);
      }
    }
    try {
      const { DnsConfigurationList: checks } = await this.options.cloudfront.send(
        new VerifyDnsConfigurationCommand({ Identifier: tenantId, Domain: domain }),
      );
      const check = checks?.find((c) => c.Domain === domain);
      if (check?.Status) parts.push(`CloudFront DNS check: ${check.Status}${check.Reason ? ` (${check.Reason})` : ''}`);
    } catch (error) {
      parts.push(`CloudFront VerifyDnsConfiguration failed: ${messageOf(error)}`);
    }
    return parts.join('; ');
  }
}
