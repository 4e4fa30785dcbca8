import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { AccountRecord, AccountStore, StoredUpgradeRequest } from '../../lambda/keys/accounts.js';
import type { PlanId } from '../../contracts/plans.js';
import type { ApiKeyChanges, ApiKeyRecord, KeyStore } from '../../lambda/keys/key-store.js';
import type { InternalKey, UsagePlanGateway } from '../../lambda/keys/usage-plan-gateway.js';
import type { RateLimits } from '../../lib/config/index.js';

/**
 * In-memory fakes of the key and account ports and of the usage-plan gateway, with the semantics
 * of their adapters (conditional puts and updates) and a record of every call for the tests.
 * Stored values are copied in and out, so a caller never holds a reference into a fake's state.
 */

const copy = <T>(value: T): T => structuredClone(value);

/** The error the DynamoDB adapters let through when a write's condition fails. */
export const conditionFailed = (what: string) =>
  new ConditionalCheckFailedException({ message: `The conditional request failed (${what})`, $metadata: {} });

export class FakeAccountStore implements AccountStore {
  readonly accounts = new Map<string, AccountRecord>();
  readonly calls: Array<{ method: 'get' | 'create' | 'replace' | 'setUpgradeRequest'; arg: unknown }> = [];

  async get(accountId: string): Promise<AccountRecord | undefined> {
    this.calls.push({ method: 'get', arg: accountId });
    const account = this.accounts.get(accountId);
    return account && copy(account);
  }

  /** attribute_not_exists(accountId) */
  async create(account: AccountRecord): Promise<void> {
    this.calls.push({ method: 'create', arg: copy(account) });
    if (this.accounts.has(account.accountId)) throw conditionFailed(`account ${account.accountId} exists`);
    this.accounts.set(account.accountId, copy(account));
  }

  /** attribute_exists(accountId) */
  async replace(account: AccountRecord): Promise<void> {
    this.calls.push({ method: 'replace', arg: copy(account) });
    if (!this.accounts.has(account.accountId)) throw conditionFailed(`no account ${account.accountId}`);
    this.accounts.set(account.accountId, copy(account));
  }

  /** attribute_exists(accountId) AND plan = :plan */
  async setUpgradeRequest(accountId: string, request: StoredUpgradeRequest, plan: PlanId): Promise<boolean> {
    this.calls.push({ method: 'setUpgradeRequest', arg: { accountId, request, plan } });
    const account = this.accounts.get(accountId);
    if (account?.plan !== plan) return false;
    this.accounts.set(accountId, { ...account, upgradeRequest: { ...request } });
    return true;
  }

  /** The scan, filtered on upgradeRequest.status = pending. */
  async listWithPendingUpgrade(): Promise<AccountRecord[]> {
    return [...this.accounts.values()].filter((a) => a.upgradeRequest?.status === 'pending').map(copy);
  }

  /** The state, for JSON searches. */
  state() {
    return { accounts: [...this.accounts.values()], calls: this.calls };
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The value the fake gateway generates for internal key `id` (API Gateway's are random; these are named after the id). */
export const valueOfGatewayKey = (id: string) => `value-of-${id}-0123456789abcdef`;

export class FakeKeyStore implements KeyStore {
  readonly records = new Map<string, ApiKeyRecord>();
  /** Hashes looked up by findByHash, in order. */
  readonly lookups: string[] = [];
  readonly calls: Array<{ method: 'findByHash' | 'put' | 'listByAccount' | 'update'; args: unknown[] }> = [];

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    this.calls.push({ method: 'findByHash', args: [keyHash] });
    this.lookups.push(keyHash);
    const record = this.records.get(keyHash);
    return record && copy(record);
  }

  /** attribute_not_exists(keyHash): never overwrites. */
  async put(record: ApiKeyRecord): Promise<void> {
    this.calls.push({ method: 'put', args: [copy(record)] });
    if (this.records.has(record.keyHash)) throw conditionFailed(`key ${record.keyHash} exists`);
    this.records.set(record.keyHash, copy(record));
  }

  /** The byAccount index: the account's keys ordered by keyId (its sort key), not by creation. */
  async listByAccount(accountId: string): Promise<ApiKeyRecord[]> {
    this.calls.push({ method: 'listByAccount', args: [accountId] });
    return [...this.records.values()]
      .filter((r) => r.accountId === accountId)
      .sort((a, b) => (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0))
      .map(copy);
  }

  /** attribute_exists(keyHash); an attribute set to undefined is removed. */
  async update(keyHash: string, changes: ApiKeyChanges): Promise<void> {
    this.calls.push({ method: 'update', args: [keyHash, copy(changes)] });
    const record = this.records.get(keyHash);
    if (!record) throw conditionFailed(`no key ${keyHash}`);
    const next: Mutable<ApiKeyRecord> = { ...record };
    for (const [name, value] of Object.entries(changes) as Array<[keyof ApiKeyChanges, unknown]>) {
      if (value === undefined) delete next[name];
      else Object.assign(next, { [name]: copy(value) });
    }
    this.records.set(keyHash, next);
  }

  byKeyId(keyId: string): ApiKeyRecord | undefined {
    const record = [...this.records.values()].find((r) => r.keyId === keyId);
    return record && copy(record);
  }

  state() {
    return { records: [...this.records.values()], calls: this.calls };
  }
}

export type GatewayCall =
  | { method: 'createAccountPlan'; accountId: string; limits: RateLimits } |
  { method: 'updateAccountPlan'; usagePlanId: string; limits: RateLimits } |
  { method: 'deleteAccountPlan'; usagePlanId: string } |
  { method: 'createKey'; accountId: string; usagePlanId: string; poolable: boolean } |
  { method: 'moveKey'; gatewayKeyId: string; from: string; to: string } |
  { method: 'deleteKey'; gatewayKeyId: string };

/**
 * Usage plans and internal keys with the semantics of the API Gateway adapter: the standard plans
 * exist from the start, Enterprise accounts' plans are created at run time (a second creation
 * adopts the first), every internal key belongs to exactly one plan, and moves and deletions are
 * idempotent (re-running an interrupted change succeeds). Moving a key that is in neither plan,
 * or deleting a plan that still has keys, fails.
 */
export class FakeUsagePlanGateway implements UsagePlanGateway {
  readonly calls: GatewayCall[] = [];
  /** Usage plan id → the account it belongs to and its limits (none for the standard plans). */
  readonly plans = new Map<string, { accountId?: string; limits?: RateLimits }>([
    ['up-free', {}],
    ['up-pro', {}],
    ['up-business', {}],
  ]);

  /** Internal key id → the usage plan it is bound to. */
  readonly members = new Map<string, string>();
  /** Internal key id → the account (or, for keys of the earlier per-key design, the customer key) it was created for. */
  readonly keyOwners = new Map<string, string>();
  /** True when the region's API key quota is reached: Free and Pro keys get pooled. */
  quotaReached = false;
  private readonly failures = new Map<GatewayCall['method'], { error: Error; skip: number }>();
  private nextKey = 1;

  /** Makes a later call of `method` reject with `error` (once, before any change): the next one, or the one after `skip` calls. */
  fail(method: GatewayCall['method'], error: Error, skip = 0): void {
    this.failures.set(method, { error, skip });
  }

  standardPlanId(plan: 'free' | 'pro' | 'business'): string {
    return `up-${plan}`;
  }

  async createAccountPlan(accountId: string, limits: RateLimits): Promise<string> {
    this.record({ method: 'createAccountPlan', accountId, limits: copy(limits) });
    // Named after the account: a second creation adopts (and updates) the plan of the first.
    const id = `up-acct-${accountId}`;
    this.plans.set(id, { accountId, limits: copy(limits) });
    return id;
  }

  async updateAccountPlan(usagePlanId: string, limits: RateLimits): Promise<void> {
    this.record({ method: 'updateAccountPlan', usagePlanId, limits: copy(limits) });
    const plan = this.plans.get(usagePlanId);
    if (!plan) throw new Error(`no usage plan ${usagePlanId}`);
    plan.limits = copy(limits);
  }

  async deleteAccountPlan(usagePlanId: string): Promise<void> {
    this.record({ method: 'deleteAccountPlan', usagePlanId });
    const plan = this.plans.get(usagePlanId);
    if (plan && !plan.accountId) throw new Error(`usage plan ${usagePlanId} is a standard plan`);
    if ([...this.members.values()].includes(usagePlanId)) throw new Error(`usage plan ${usagePlanId} still has keys`);
    this.plans.delete(usagePlanId);
  }

  async createKey(accountId: string, usagePlanId: string, poolable: boolean): Promise<InternalKey | undefined> {
    this.record({ method: 'createKey', accountId, usagePlanId, poolable });
    if (!this.plans.has(usagePlanId)) throw new Error(`no usage plan ${usagePlanId}`);
    if (this.quotaReached) {
      if (poolable) return undefined;
      throw new Error('API key quota reached');
    }
    const id = `gk-${this.nextKey++}`;
    this.members.set(id, usagePlanId);
    this.keyOwners.set(id, accountId);
    return { id, value: valueOfGatewayKey(id) };
  }

  async moveKey(gatewayKeyId: string, from: string, to: string): Promise<void> {
    this.record({ method: 'moveKey', gatewayKeyId, from, to });
    const current = this.members.get(gatewayKeyId);
    if (current === undefined) throw new Error(`no API key ${gatewayKeyId}`);
    if (!this.plans.has(to)) throw new Error(`no usage plan ${to}`);
    // Already moved (an interrupted change run again) is fine; a key in a third plan is not.
    if (current !== from && current !== to) throw new Error(`API key ${gatewayKeyId} is in ${current}, not ${from}`);
    this.members.set(gatewayKeyId, to);
  }

  async deleteKey(gatewayKeyId: string): Promise<void> {
    this.record({ method: 'deleteKey', gatewayKeyId });
    // Idempotent: deleting a deleted key is fine.
    this.members.delete(gatewayKeyId);
    this.keyOwners.delete(gatewayKeyId);
  }

  /** Internal key ids bound to a usage plan. */
  keysIn(usagePlanId: string): string[] {
    return [...this.members.entries()].filter(([, plan]) => plan === usagePlanId).map(([id]) => id);
  }

  state() {
    return {
      calls: this.calls,
      plans: [...this.plans.entries()],
      members: [...this.members.entries()],
      keyOwners: [...this.keyOwners.entries()],
    };
  }

  private record(call: GatewayCall): void {
    this.calls.push(call);
    const failure = this.failures.get(call.method);
    if (!failure) return;
    if (failure.skip > 0) {
      failure.skip -= 1;
      return;
    }
    this.failures.delete(call.method);
    throw failure.error;
  }
}
