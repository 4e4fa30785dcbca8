import { DeleteDistributionTenantCommand, ResourceNotDisabled } from '@aws-sdk/client-cloudfront';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { describe, expect, it } from 'vitest';
import { CloudFrontTenants, tenantName } from '../../../lambda/domains/cloudfront-tenants.js';
import { cloudfront, DIST, GROUP, meta, notFound, sent, stale, tenant, TENANT_ID } from './cloudfront-fixtures.js';

const tenants = () =>
  new CloudFrontTenants({
    cloudfront: new CloudFrontClient({ region: 'us-east-1', maxAttempts: 1 }),
    distributionId: DIST,
    connectionGroupId: GROUP,
    pacing: { sleep: async () => {}, random: () => 0.5 },
  });

const version = () => ({ tenant: { ...tenant([], { Enabled: false }).DistributionTenant, Id: TENANT_ID }, etag: 'E7' });

describe('tenant names', () => {
  it('one tenant per domain, hashed when the name would pass 128 characters', () => {
    expect(tenantName('www.example.com')).toBe('domain-www.example.com');
    const long = `${'a'.repeat(63)}.${'b'.repeat(63)}.example.com`;
    const name = tenantName(long);
    expect(name).toHaveLength(127);
    expect(name).toMatch(/^domain-a{63}\.b{39}-[0-9a-f]{16}$/);
    expect(tenantName(long)).toBe(name);
    expect(() => tenantName('bad_name.example.com')).toThrow(/Cannot name a CloudFront distribution tenant/);
  });
});

describe('CloudFrontTenants: delete', () => {
  it('deletes with the ETag of the version it was given', async () => {
    expect(await tenants().delete(version())).toBe('deleted');
    expect(sent()).toEqual([['DeleteDistributionTenant', { Id: TENANT_ID, IfMatch: 'E7' }]]);
  });

  it('answers pending while the disable deploys (ResourceNotDisabled), deleted when the tenant is gone already', async () => {
    cloudfront.on(DeleteDistributionTenantCommand).rejects(new ResourceNotDisabled({ message: 'not disabled', ...meta }));
    expect(await tenants().delete(version())).toBe('pending');
    cloudfront.on(DeleteDistributionTenantCommand).rejects(notFound());
    expect(await tenants().delete(version())).toBe('deleted');
  });

  it('leaves a stale ETag to the caller (racing re-reads)', async () => {
    cloudfront.on(DeleteDistributionTenantCommand).rejects(stale());
    await expect(tenants().delete(version())).rejects.toMatchObject({ name: 'PreconditionFailed' });
  });
});
