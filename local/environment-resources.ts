import type { RuntimeResources } from '../cli/environment-teardown.js';
import type { SimulatedCertificateAuthority } from './edge.js';
import type { UsagePlans } from './usage-plans.js';

/**
 * The environment teardown's port on the local platform: the simulated tenants (one per domain)
 * and the usage plans and keys as the local API front holds them, named as on API Gateway
 * (`internal-<account>` keys, `enterprise-<account>` plans).
 */
export function localRuntimeResources(
  certificates: SimulatedCertificateAuthority,
  usagePlans: UsagePlans,
): RuntimeResources {
  return {
    async tenants() {
      return certificates.tenantDomains();
    },
    removeTenant: (domain) => certificates.removeTenant(domain),
    async internalKeys() {
      return usagePlans.keysNamed('internal-');
    },
    deleteKey: (id) => usagePlans.deleteKey(id),
    async accountPlans() {
      return usagePlans.plansNamed('enterprise-').map((id) => ({ id, name: id }));
    },
    async deleteAccountPlan(id) {
      usagePlans.deletePlan(id);
    },
  };
}
