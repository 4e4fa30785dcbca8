import {
  DeleteDistributionTenantCommand,
  GetDistributionTenantCommand,
  ResourceNotDisabled,
  UpdateDistributionTenantCommand,
} from '@aws-sdk/client-cloudfront';
import { describe, expect, it } from 'vitest';
import type { TenantClaim } from '../../../lambda/domains/ports.js';
import { authority, CERT_ARN, cloudfront, delays, DIST, GROUP, meta, names, notFound, sent, stale, tenant, TENANT_ID } from './cloudfront-fixtures.js';

// CloudFrontCertificateAuthority.release → releaseFromTenant, against CloudFront's answers.
const WWW: TenantClaim = { domain: 'www.example.com', projectId: 'prj_1' };
const removed = async () => undefined;
const notDeployed = () => new ResourceNotDisabled({ message: 'The distribution tenant is not disabled yet', ...meta });

describe('CloudFrontCertificateAuthority: release', () => {
  it('disables, then deletes, the domain\'s tenant, sending its settings back as read', async () => {
    const customizations = { Certificate: { Arn: CERT_ARN } };
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'active']], { Customizations: customizations }));
    expect(await authority().release(WWW, removed)).toBe('released');
    expect(sent()).toEqual([
      ['GetDistributionTenant', { Identifier: 'domain-www.example.com' }],
      [
        'UpdateDistributionTenant',
        {
          Id: TENANT_ID,
          IfMatch: 'E1',
          DistributionId: DIST,
          Domains: [{ Domain: 'www.example.com' }],
          ConnectionGroupId: GROUP,
          Customizations: customizations,
          Enabled: false,
        },
      ],
      ['DeleteDistributionTenant', { Id: TENANT_ID, IfMatch: 'E2' }],
    ]);
  });

  it('answers pending, without waiting, while the disable deploys; the next round deletes with the fresh ETag', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'active']]));
    cloudfront.on(DeleteDistributionTenantCommand).rejects(notDeployed());
    expect(await authority().release(WWW, removed)).toBe('pending');
    expect(names()).toEqual(['GetDistributionTenant', 'UpdateDistributionTenant', 'DeleteDistributionTenant']);
    expect(delays).toEqual([]);

    cloudfront.reset();
    cloudfront.on(GetDistributionTenantCommand).resolves({ ...tenant([['www.example.com', 'active']], { Enabled: false }), ETag: 'E3' });
    cloudfront.on(DeleteDistributionTenantCommand).resolves({});
    expect(await authority().release(WWW, removed)).toBe('released');
    expect(sent()).toEqual([
      ['GetDistributionTenant', { Identifier: 'domain-www.example.com' }],
      ['DeleteDistributionTenant', { Id: TENANT_ID, IfMatch: 'E3' }],
    ]);
  });

  it('asks for the live claim after reading the tenant, and keeps a tenant the domain was claimed on again', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['www.example.com', 'inactive']]));
    const callsWhenAsked: number[] = [];
    const readded = async (): Promise<TenantClaim> => {
      callsWhenAsked.push(cloudfront.calls().length);
      return { domain: 'www.example.com', projectId: 'prj_2' };
    };
    // One tenant per domain: another project's claim of the domain is on this very tenant.
    expect(await authority().release(WWW, readded)).toBe('kept');
    expect(callsWhenAsked).toEqual([1]);
    expect(names()).toEqual(['GetDistributionTenant']);
  });

  it('re-reads after a lost race and asks again: a re-added domain that enabled the tenant meanwhile keeps it', async () => {
    cloudfront
      .on(GetDistributionTenantCommand)
      .resolvesOnce(tenant([['www.example.com', 'active']], { Enabled: false }))
      .resolves({ ...tenant([['www.example.com', 'inactive']]), ETag: 'E9' });
    cloudfront.on(DeleteDistributionTenantCommand).rejects(stale());
    const answers: Array<TenantClaim | undefined> = [undefined, { domain: 'www.example.com', projectId: 'prj_1' }];
    expect(await authority().release(WWW, async () => answers.shift())).toBe('kept');
    expect(names()).toEqual(['GetDistributionTenant', 'DeleteDistributionTenant', 'GetDistributionTenant']);
    expect(answers).toEqual([]);
  });

  it('is done when there is no tenant, the domain is not on it, or the tenant is gone by the delete', async () => {
    cloudfront.on(GetDistributionTenantCommand).rejects(notFound());
    expect(await authority().release(WWW, removed)).toBe('released');
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([['example.com', 'active']]));
    expect(await authority().release(WWW, removed)).toBe('released');
    expect(names()).toEqual(['GetDistributionTenant', 'GetDistributionTenant']);

    cloudfront.reset();
    cloudfront.on(GetDistributionTenantCommand).resolves(tenant([], { Enabled: false }));
    cloudfront.on(DeleteDistributionTenantCommand).rejects(notFound());
    expect(await authority().release(WWW, removed)).toBe('released');
  });

  it('treats a tenant deleted under its update as released (EntityNotFound is a race, and the re-read finds nothing)', async () => {
    cloudfront.on(GetDistributionTenantCommand).resolvesOnce(tenant([['www.example.com', 'active']])).rejects(notFound());
    cloudfront.on(UpdateDistributionTenantCommand).rejects(notFound());
    expect(await authority().release(WWW, removed)).toBe('released');
    expect(names()).toEqual(['GetDistributionTenant', 'UpdateDistributionTenant', 'GetDistributionTenant']);
  });
});
