import type { RuntimeResources } from '../cli/environment-teardown.js';
import type { SimulatedCertificateAuthority } from './edge.js';
import type { UsagePlans } from './usage-plans.js';

/** The environment teardown's port on the local platform: simulated tenants, usage plans and keys named as on AWS. */
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
