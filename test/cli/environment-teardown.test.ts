import { describe, expect, it } from 'vitest';
import { type RuntimeResources, TeardownIncompleteError, teardownRuntimeResources } from '../../cli/environment-teardown.js';

/** An in-memory environment: a tenant whose delete CloudFront refuses `refusals` times, calls recorded in order. */
function environment(refusals: number) {
  const calls: string[] = [];
  let left = refusals;
  let tenant = true;
  const keys = new Map([['k1', 'internal-acct_a'], ['k2', 'internal-acct_b']]);
  const plans = new Map([['p1', 'enterprise-acct_b']]);
  const resources: RuntimeResources = {
    tenants: async () => (tenant ? ['acme-site'] : []),
    removeTenant: async (name) => {
      calls.push(`tenant ${name}`);
      if (left-- > 0) return 'pending';
      tenant = false;
      return 'deleted';
    },
    internalKeys: async () => [...keys].map(([id, name]) => ({ id, name })),
    deleteKey: async (id) => {
      calls.push(`key ${id}`);
      keys.delete(id);
    },
    accountPlans: async () => [...plans].map(([id, name]) => ({ id, name })),
    deleteAccountPlan: async (id) => {
      calls.push(`plan ${id}`);
      plans.delete(id);
    },
  };
  return { resources, calls };
}

describe('teardownRuntimeResources', () => {
  it('deletes the keys before the plans they are bound to, then the tenants, pausing between refused rounds', async () => {
    const { resources, calls } = environment(2);
    const pauses: number[] = [];
    const report = await teardownRuntimeResources(resources, {
      pause: async (ms) => void pauses.push(ms),
      pauseMs: 10,
    });
    expect(calls).toEqual(['key k1', 'key k2', 'plan p1', 'tenant acme-site', 'tenant acme-site', 'tenant acme-site']);
    expect(pauses).toEqual([10, 10]);
    expect(report).toEqual({ tenants: ['acme-site'], keys: ['internal-acct_a', 'internal-acct_b'], usagePlans: ['enterprise-acct_b'] });
  });

  it('gives up after maxRounds with what is still pending, and a re-run finishes the job', async () => {
    const { resources } = environment(5);
    const run = () => teardownRuntimeResources(resources, { pause: async () => {}, maxRounds: 3 });
    await expect(run()).rejects.toThrow(TeardownIncompleteError);
    await expect(run()).resolves.toEqual({ tenants: ['acme-site'], keys: [], usagePlans: [] });
  });
});
