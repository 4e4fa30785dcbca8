type Named = { readonly id: string; readonly name: string };

/** What an environment creates outside its stacks, which `cdk destroy` leaves (docs/operators/teardown.md). */
export interface RuntimeResources {
  /** Never the stack's own default tenant. */
  tenants(): Promise<readonly string[]>;
  /** Disable, then delete: `pending` while CloudFront still deploys the disable (try again later). */
  removeTenant(name: string): Promise<'deleted' | 'pending'>;
  internalKeys(): Promise<readonly Named[]>;
  deleteKey(id: string): Promise<void>;
  accountPlans(): Promise<readonly Named[]>;
  /** Detaches the plan from the API stage and deletes it. */
  deleteAccountPlan(id: string): Promise<void>;
}

export interface TeardownReport {
  readonly tenants: readonly string[];
  readonly keys: readonly string[];
  readonly usagePlans: readonly string[];
}

export interface TeardownOptions {
  /** Waits between rounds of pending tenant deletes (a disable deploys in minutes on AWS). */
  readonly pause: (ms: number) => Promise<void>;
  readonly pauseMs?: number;
  /** Rounds before giving up on tenants still pending: 60 (30 minutes at the default pause). */
  readonly maxRounds?: number;
  readonly progress?: (line: string) => void;
}

export class TeardownIncompleteError extends Error {
  constructor(readonly pending: readonly string[], readonly report: TeardownReport) {
    super(`distribution tenants still being disabled after the last round: ${pending.join(', ')}`);
    this.name = 'TeardownIncompleteError';
  }
}

/** Keys first (a plan with keys bound is in use), then plans, then tenants, retrying pending ones; idempotent. */
export async function teardownRuntimeResources(
  resources: RuntimeResources,
  options: TeardownOptions,
): Promise<TeardownReport> {
  const progress = options.progress ?? (() => {});
  const deleteAll = async (what: string, items: readonly Named[], remove: (id: string) => Promise<void>) => {
    for (const item of items) {
      await remove(item.id);
      progress(`deleted ${what} ${item.name} (${item.id})`);
    }
    return items.map((item) => item.name);
  };
  const keys = await deleteAll('API key', await resources.internalKeys(), (id) => resources.deleteKey(id));
  const usagePlans = await deleteAll('usage plan', await resources.accountPlans(), (id) => resources.deleteAccountPlan(id));
  const tenants: string[] = [];
  let pending = [...(await resources.tenants())];
  const maxRounds = options.maxRounds ?? 60;
  for (let round = 1; pending.length > 0; round++) {
    const still: string[] = [];
    for (const name of pending) {
      if ((await resources.removeTenant(name)) === 'deleted') {
        tenants.push(name);
        progress(`deleted distribution tenant ${name}`);
      } else {
        still.push(name);
      }
    }
    pending = still;
    if (pending.length === 0) break;
    if (round >= maxRounds) throw new TeardownIncompleteError(pending, { tenants, keys, usagePlans });
    progress(`waiting for ${pending.length} disabled tenant(s) to deploy before deleting them (round ${round} of ${maxRounds})`);
    await options.pause(options.pauseMs ?? 30_000);
  }
  return { tenants, keys, usagePlans };
}
