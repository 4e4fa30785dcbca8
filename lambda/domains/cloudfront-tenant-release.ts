import { type CloudFrontTenants, live } from './cloudfront-tenants.js';
import type { ReleaseOutcome, TenantClaim } from './ports.js';

/**
 * One step of releasing a removed domain from its distribution tenant (CertificateAuthority.release
 * on CloudFront). The domain leaves a tenant that keeps other domains; with its last domain the
 * tenant is disabled and then deleted, which CloudFront refuses until the disable has deployed:
 * that answers `pending`, and the caller (the domain flow's release branch) tries again later.
 *
 * A domain added again before this runs must keep its tenant. The live claim is asked for after the
 * tenant is read and before anything is written: a claim made earlier is seen (`kept` when it is on
 * this very tenant), and a claim that writes the tenant later changes its ETag, so the write below
 * fails (PreconditionFailed), `racing` re-reads and the check runs again. A tenant deleted under a
 * new claim's feet is re-created by its flow (EntityNotFound is a race there too).
 */
export function releaseFromTenant(
  tenants: CloudFrontTenants,
  released: TenantClaim,
  current: () => Promise<TenantClaim | undefined>,
): Promise<ReleaseOutcome> {
  const name = tenants.name(released.domain, released);
  return tenants.racing(async (): Promise<ReleaseOutcome> => {
    const version = await tenants.read(name, released.projectId);
    if (!version) return 'released';
    const claim = await current();
    if (claim && tenants.name(claim.domain, claim) === name) return 'kept';
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
