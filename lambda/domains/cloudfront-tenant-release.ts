import { type CloudFrontTenants, live, tenantName } from './cloudfront-tenants.js';
import type { ReleaseOutcome, TenantClaim } from './ports.js';

/**
 * One step of releasing a removed domain's tenant: disabled, then deleted (`pending` until the
 * disable deployed). The live claim is read between the tenant's read and any write, so a domain
 * added again keeps its tenant (`kept`); a claim written later changes the ETag and `racing` decides again.
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
    // One tenant per domain: a live claim of the domain holds this very tenant.
    if (await current()) return 'kept';
    // Disabled: its last domain was released before (maybe by an earlier attempt); only the delete is left.
    if (version.tenant.Enabled === false) return outcome(await tenants.delete(version));
    const domains = live(version.tenant);
    if (!domains.includes(released.domain)) return 'released';
    // A tenant needs at least one domain, and only a disabled tenant can be deleted.
    const etag = await tenants.update(version, { domains, certificate: false, enabled: false });
    return outcome(await tenants.delete({ tenant: { ...version.tenant, Enabled: false }, etag }));
  });
}

const outcome = (deleted: 'deleted' | 'pending'): ReleaseOutcome => (deleted === 'deleted' ? 'released' : 'pending');
