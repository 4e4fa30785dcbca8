import { type CloudFrontTenants, live, tenantName } from './cloudfront-tenants.js';
import type { ReleaseOutcome, TenantClaim } from './ports.js';

/**
 * One step of releasing a removed domain from its tenant: it leaves a tenant with other domains;
 * with its last one the tenant is disabled, then deleted (`pending` until the disable deployed).
 * The live claim is read between the tenant's read and any write, so a domain added again keeps its
 * tenant (`kept`); a claim written later changes the ETag and `racing` decides again.
 */
export function releaseFromTenant(
  tenants: CloudFrontTenants,
  released: TenantClaim,
  current: () => Promise<TenantClaim | undefined>,
): Promise<ReleaseOutcome> {
  const name = tenantName(released.domain);
  return tenants.racing(async (): Promise<ReleaseOutcome> => {
    const version = await tenants.read(name);
    if (!version) return 'released';
    const claim = await current();
    if (claim && tenantName(claim.domain) === name) return 'kept';
    // Disabled: its last domain was released before (maybe by an earlier attempt); only the delete is left.
    if (version.tenant.Enabled === false) return outcome(await tenants.delete(version));
    const domains = live(version.tenant);
    if (!domains.includes(released.domain)) return 'released';
    const rest = domains.filter((d) => d !== released.domain);
    if (rest.length > 0) {
      await tenants.update(version, { domains: rest, certificate: false, enabled: true });
      return 'released';
    }
    // A tenant needs at least one domain, and only a disabled tenant can be deleted.
    const etag = await tenants.update(version, { domains, certificate: false, enabled: false });
    return outcome(await tenants.delete({ tenant: { ...version.tenant, Enabled: false }, etag }));
  });
}

const outcome = (deleted: 'deleted' | 'pending'): ReleaseOutcome => (deleted === 'deleted' ? 'released' : 'pending');
