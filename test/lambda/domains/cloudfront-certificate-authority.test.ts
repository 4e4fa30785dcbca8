import { DescribeCertificateCommand } from '@aws-sdk/client-acm';
import {
  CNAMEAlreadyExists,
  CreateDistributionTenantCommand,
  EntityAlreadyExists,
  EntityLimitExceeded,
  GetDistributionTenantCommand,
  GetManagedCertificateDetailsCommand,
  InvalidArgument,
  UpdateDistributionTenantCommand,
  VerifyDnsConfigurationCommand,
} from '@aws-sdk/client-cloudfront';
import { describe, expect, it } from 'vitest';
import { describeAcmFailure } from '../../../lambda/domains/cloudfront-certificate-authority.js';
import { DomainInUseError, TenantConflictError, TenantLimitError } from '../../../lambda/domains/cloudfront-tenants.js';
import {
  acm,
  authority,
  CERT_ARN,
  certificate,
  cloudfront,
  delays,
  DIST,
  GROUP,
  MCR,
  meta,
  names,
  notFound,
  project,
  sent,
  stale,
  tenant,
  TENANT_ID,
  WWW,
} from './cloudfront-fixtures.js';

describe('CloudFrontCertificateAuthority: request', () => {
  it('creates the project\'s tenant with the domain and a CloudFront-validated managed certificate', async () => {
    cloudfront.on(GetDistributionTenantCommand).rejects(notFound());
    await authority().request(WWW, project);
    expect(sent()).toEqual([
      ['GetDistributionTenant', { Identifier: 'domain-www.example.com' }],
      [
        'CreateDistributionTenant',
        {
          DistributionId: DIST,
          Name: 'domain-www.example.com',
          Domains: [{ Domain: 'www.example.com' }],
          ConnectionGroupId: GROUP,
          ManagedCertificateRequest: MCR,
          Enabled: true,
          Tags: { Items: [{ Key: 'projectId', Value: 'prj_1' }] },
        },
      ],
    ]);
  });

  it('requests a new certificate on the existing tenant, sending its settings back as read', async () => {
    const customizations = { WebAcl: { Action: 'override' as const, Arn: 'arn:aws:wafv2:us-east-1:1:global/webacl/x/1' } };
    cloudfront.on(GetDistributionTenantCommand).resolves(
      tenant([['www.example.com', 'inactive']], { Customizations: customizations, Parameters: [{ Name: 'origin', Value: 'site' }] }),
    );
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('failed', ['www.example.com']));
    await authority().request(WWW, project);
    expect(sent()).toEqual([
      ['GetDistributionTenant', { Identifier: 'domain-www.example.com' }],
      ['GetManagedCertificateDetails', { Identifier: TENANT_ID }],
      [
        'UpdateDistributionTenant',
        {
          Id: TENANT_ID,
          IfMatch: 'E1',
          DistributionId: DIST,
          Domains: [{ Domain: 'www.example.com' }],
          ConnectionGroupId: GROUP,
          Customizations: customizations,
          Parameters: [{ Name: 'origin', Value: 'site' }],
          ManagedCertificateRequest: MCR,
          Enabled: true,
        },
      ],
    ]);
  });

  it('is idempotent: nothing is written when the domain is there and its certificate is pending or issued, or it is active', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'inactive']]));
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('pending-validation', ['www.example.com']));
    await authority().request(WWW, project);
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('issued', ['www.example.com']));
    await authority().request(WWW, project);
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'active']]));
    await authority().request(WWW, project);
    expect(names()).toEqual([
      'GetDistributionTenant',
      'GetManagedCertificateDetails',
      'GetDistributionTenant',
      'GetManagedCertificateDetails',
      'GetDistributionTenant',
    ]);
  });

  it('requests the certificate again when the previous one failed (re-verify is a fresh attempt)', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'inactive']]));
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('failed', ['www.example.com']));
    await authority().request(WWW, project);
    expect(sent()[2]).toEqual([
      'UpdateDistributionTenant',
      {
        Id: TENANT_ID,
        IfMatch: 'E1',
        DistributionId: DIST,
        Domains: [{ Domain: 'www.example.com' }],
        ConnectionGroupId: GROUP,
        ManagedCertificateRequest: MCR,
        Enabled: true,
      },
    ]);
  });

  it('reuses a tenant that was disabled when its last domain was released: its old domains are gone', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['old.example.com', 'active']], { Enabled: false }));
    await authority().request(WWW, project);
    expect(sent()).toEqual([
      ['GetDistributionTenant', { Identifier: 'domain-www.example.com' }],
      [
        'UpdateDistributionTenant',
        expect.objectContaining({ Domains: [{ Domain: 'www.example.com' }], ManagedCertificateRequest: MCR, Enabled: true }),
      ],
    ]);
  });

  it('names the quota when the account has no room for another tenant', async () => {
    cloudfront.on(GetDistributionTenantCommand).rejects(notFound());
    cloudfront.on(CreateDistributionTenantCommand).rejects(new EntityLimitExceeded({ message: 'limit', ...meta }));
    const error = await authority().request(WWW, project).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TenantLimitError);
    expect((error as Error).message).toMatch(/10,000/);
  });

  it('explains a domain CloudFront already has elsewhere (CNAMEAlreadyExists)', async () => {
    cloudfront.on(GetDistributionTenantCommand).rejects(notFound());
    cloudfront.on(CreateDistributionTenantCommand).rejects(new CNAMEAlreadyExists({ message: 'exists', ...meta }));
    const error = await authority().request(WWW, project).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainInUseError);
    expect((error as Error).message).toMatch(/www\.example\.com.*another CloudFront distribution or tenant/);
  });

  it('re-reads and retries when the ETag moved (PreconditionFailed)', async () => {
    cloudfront
      .on(GetDistributionTenantCommand)
      .resolvesOnce(tenant([['www.example.com', 'inactive']]))
      .resolves({ ...tenant([['www.example.com', 'inactive']]), ETag: 'E9' });
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('failed', ['www.example.com']));
    cloudfront.on(UpdateDistributionTenantCommand).rejectsOnce(stale()).resolves({ ETag: 'E10' });
    await authority().request(WWW, project);
    const updates = sent().filter(([name]) => name === 'UpdateDistributionTenant');
    expect(updates.map(([, input]) => (input as { IfMatch: string }).IfMatch)).toEqual(['E1', 'E9']);
    expect(delays).toEqual([250]);
  });

  it('leaves the tenant a concurrent request created first to its pending certificate (EntityAlreadyExists)', async () => {
    cloudfront.on(GetDistributionTenantCommand).rejectsOnce(notFound()).resolves(tenant([['www.example.com', 'inactive']]));
    cloudfront.on(CreateDistributionTenantCommand).rejects(new EntityAlreadyExists({ message: 'exists', ...meta }));
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('pending-validation', ['www.example.com']));
    await authority().request(WWW, project);
    expect(names()).toEqual([
      'GetDistributionTenant',
      'CreateDistributionTenant',
      'GetDistributionTenant',
      'GetManagedCertificateDetails',
    ]);
  });

  it('creates the tenant again when it was deleted between the read and the update (a release racing a re-add)', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolvesOnce(tenant([], { Enabled: false })).rejects(notFound());
    cloudfront.on(UpdateDistributionTenantCommand).rejects(notFound());
    await authority().request(WWW, project);
    expect(names()).toEqual(['GetDistributionTenant', 'UpdateDistributionTenant', 'GetDistributionTenant', 'CreateDistributionTenant']);
    expect(delays).toEqual([250]);
  });

  it('refuses a tenant of another distribution', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'active']], { DistributionId: 'EOTHER' }));
    await expect(authority().request(WWW, project)).rejects.toThrow(TenantConflictError);
  });

  it('leaves CloudFront throttling to the SDK client\'s retries: a throttle that outlasts them is rethrown after one send', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'Throttling', $metadata: {} });
    cloudfront.on(GetDistributionTenantCommand).rejects(throttled);
    await expect(authority().request(WWW, project)).rejects.toBe(throttled);
    expect(names()).toEqual(['GetDistributionTenant']);
    expect(delays).toEqual([]);
  });
});

describe('CloudFrontCertificateAuthority: status', () => {
  it('issued when the domain is active on its tenant', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'active']]));
    expect(await authority().status(WWW)).toEqual({ status: 'issued' });
    expect(names()).toEqual(['GetDistributionTenant']);
  });

  it('pending while the managed certificate is pending validation', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'inactive']]));
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('pending-validation', ['www.example.com']));
    expect(await authority().status(WWW)).toEqual({ status: 'pending' });
    expect(sent()).toEqual([
      ['GetDistributionTenant', { Identifier: 'domain-www.example.com' }],
      ['GetManagedCertificateDetails', { Identifier: TENANT_ID }],
    ]);
  });

  it('pending when issued but the domain is not active yet; attaches the issued certificate to the tenant once', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'inactive']]));
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('issued', ['www.example.com']));
    expect(await authority().status(WWW)).toEqual({ status: 'pending' });
    expect(sent()[2]).toEqual([
      'UpdateDistributionTenant',
      {
        Id: TENANT_ID,
        IfMatch: 'E1',
        DistributionId: DIST,
        Domains: [{ Domain: 'www.example.com' }],
        ConnectionGroupId: GROUP,
        Customizations: { Certificate: { Arn: CERT_ARN } },
        Enabled: true,
      },
    ]);

    cloudfront.reset();
    cloudfront
      .on(GetDistributionTenantCommand)
      .resolves(tenant([['www.example.com', 'inactive']], { Customizations: { Certificate: { Arn: CERT_ARN } } }));
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('issued', ['www.example.com']));
    expect(await authority().status(WWW)).toEqual({ status: 'pending' });
    expect(names()).toEqual(['GetDistributionTenant', 'GetManagedCertificateDetails']);
  });

  it('failed, saying why, when CloudFront refuses to attach the issued certificate', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'inactive']]));
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('issued', ['www.example.com']));
    cloudfront.on(UpdateDistributionTenantCommand).rejects(new InvalidArgument({ message: 'The certificate is managed', ...meta }));
    expect(await authority().status(WWW)).toEqual({
      status: 'failed',
      reason: 'the certificate is issued, but CloudFront refused to attach it to tenant domain-www.example.com: The certificate is managed',
    });
    cloudfront.on(UpdateDistributionTenantCommand).rejects(stale());
    expect(await authority().status(WWW)).toEqual({ status: 'pending' });
  });

  it('failed with ACM\'s CAA_ERROR named, the domain\'s failed validation and CloudFront\'s DNS check', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'inactive']]));
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('failed', ['www.example.com']));
    cloudfront.on(VerifyDnsConfigurationCommand).resolves({
      DnsConfigurationList: [{ Domain: 'www.example.com', Status: 'valid-configuration' }],
    });
    acm.on(DescribeCertificateCommand).resolves({
      Certificate: {
        CertificateArn: CERT_ARN,
        Status: 'FAILED',
        FailureReason: 'CAA_ERROR',
        DomainValidationOptions: [{ DomainName: 'www.example.com', ValidationStatus: 'FAILED' }],
      },
    });
    const result = await authority().status(WWW);
    expect(result).toEqual({
      status: 'failed',
      reason:
        'the CloudFront-managed certificate is failed; ACM: CAA_ERROR: a CAA record on the domain or one of its parents does not allow Amazon to issue certificates (allow one of amazon.com, amazontrust.com, awstrust.com, amazonaws.com); validation of www.example.com failed; CloudFront DNS check: valid-configuration',
    });
    const described = acm.commandCalls(DescribeCertificateCommand).map((c) => c.args[0].input);
    expect(described).toEqual([{ CertificateArn: CERT_ARN }]);
    expect(sent()[2]).toEqual(['VerifyDnsConfiguration', { Identifier: TENANT_ID, Domain: 'www.example.com' }]);
  });

  it('failed on a validation timeout, with CloudFront\'s DNS reason, and says when ACM could not be asked', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'inactive']]));
    cloudfront.on(GetManagedCertificateDetailsCommand).resolves(certificate('validation-timed-out', ['www.example.com']));
    cloudfront.on(VerifyDnsConfigurationCommand).resolves({
      DnsConfigurationList: [{ Domain: 'www.example.com', Status: 'invalid-configuration', Reason: 'CNAME points elsewhere' }],
    });
    acm.on(DescribeCertificateCommand).rejects(Object.assign(new Error('not authorized'), { name: 'AccessDeniedException', $metadata: {} }));
    expect(await authority().status(WWW)).toEqual({
      status: 'failed',
      reason:
        'the CloudFront-managed certificate is validation-timed-out; ACM DescribeCertificate failed: not authorized; CloudFront DNS check: invalid-configuration (CNAME points elsewhere)',
    });
  });

  it('failed when the domain is not on its tenant, there is no tenant, or no certificate was requested', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['example.com', 'active']]));
    expect(await authority().status(WWW)).toMatchObject({ status: 'failed', reason: expect.stringMatching(/not on CloudFront distribution tenant domain-www.example.com/) });
    cloudfront.on(GetDistributionTenantCommand).rejects(notFound());
    expect(await authority().status(WWW)).toMatchObject({ status: 'failed' });
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'inactive']]));
    cloudfront.on(GetManagedCertificateDetailsCommand).rejects(notFound());
    expect(await authority().status(WWW)).toMatchObject({ status: 'failed', reason: expect.stringMatching(/no managed certificate request/) });
  });

  it('words the ACM failure reasons, and passes unknown ones through', () => {
    expect(describeAcmFailure('CAA_ERROR')).toMatch(/^CAA_ERROR: a CAA record/);
    expect(describeAcmFailure('DOMAIN_NOT_ALLOWED')).toMatch(/^DOMAIN_NOT_ALLOWED: /);
    expect(describeAcmFailure('SOMETHING_NEW')).toBe('SOMETHING_NEW');
  });
});
