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
    tenants: async () => certificates.tenantDomains(),
    removeTenant: (domain) => certificates.removeTenant(domain),
    internalKeys: async () => usagePlans.keysNamed('internal-'),
    deleteKey: async (id) => usagePlans.deleteKey(id),
    accountPlans: async () => usagePlans.plansNamed('enterprise-').map((id) => ({ id, name: id })),
    deleteAccountPlan: (id) => usagePlans.deleteAccountPlan(id),
  };
}
