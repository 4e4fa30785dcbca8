import { expect, vi } from 'vitest';
import { AccountService } from '../../../lambda/keys/account-service.js';
import { HttpProblem } from '../../../lambda/shared/problem.js';
import type { ApiKeyRecord } from '../../../lambda/keys/key-store.js';
import { AccountLimits } from '../../../lambda/rate-limits/account-limits.js';
import type { LimiterStore } from '../../../lambda/rate-limits/limiter-store.js';
import { MemoryLimiterStore } from '../../support/memory-limiter-store.js';
import { RateLimiter } from '../../../lambda/rate-limits/rate-limiter.js';
import { ManualClock } from '../../support/clock.js';
import { loadConfig, type PlanId, type RateLimits } from '../../../lib/config/index.js';
import { FakeAccountStore, FakeKeyStore, FakeUsagePlanGateway } from '../../support/key-fakes.js';

export const config = loadConfig();
/** 2026-11-21 10:15:30.123 UTC. */
export const T0 = Date.UTC(2026, 10, 21, 10, 15, 30, 123);
export const iso = (ms: number) => new Date(ms).toISOString();
export const AGREED: RateLimits = { perMinute: 20_000, perDay: 5_000_000 };
/** Above one shard's 30,000 a minute: the account's budget is split across 2 items. */
export const AGREED_BIG: RateLimits = { perMinute: 60_000, perDay: 50_000_000 };

const LIMITER_METHODS: ReadonlyArray<keyof LimiterStore> = [
  'tryConsume', 'get', 'provision', 'provisionIfMissing', 'setKeyMarker', 'clearKeyMarker', 'addStrike',
  'restartStrikes', 'resetStrikes', 'refund', 'adjustCounters',
];

/** The account service over fakes with the adapters' semantics and the real in-memory limiter store. */
export function setup() {
  const accounts = new FakeAccountStore();
  const keys = new FakeKeyStore();
  const limiter = new MemoryLimiterStore();
  const limiterCalls = LIMITER_METHODS.map((method) => vi.spyOn(limiter, method));
  const gateway = new FakeUsagePlanGateway();
  const clock = new ManualClock(T0);
  const accountService = new AccountService({ accounts, keys, limiter, gateway, clock, config });
  const accountLimits = new AccountLimits(limiter);

  /** Every piece of state and every call the account service could have put something into, as text. */
  const everything = () =>
    JSON.stringify({
      accounts: accounts.state(),
      keys: keys.state(),
      gateway: gateway.state(),
      limiterItems: ['acct#acct_1', 'acct#acct_1#1'].map((id) => limiter.raw(id)),
      limiterCalls: limiterCalls.map((spy) => spy.mock.calls),
    });
  /** The stored data only (no call logs): to show that a refused change changed nothing. */
  const data = () =>
    JSON.stringify({
      accounts: [...accounts.accounts.entries()],
      keys: [...keys.records.entries()],
      plans: [...gateway.plans.entries()],
      members: [...gateway.members.entries()],
      limiterItems: ['acct#acct_1', 'acct#acct_1#1', 'acct#acct_1#2'].map((id) => limiter.raw(id)),
    });

  const createAccount = (plan: PlanId = 'free', limits?: RateLimits, accountId = 'acct_1') =>
    accountService.createAccount({ name: 'Acme', plan, ...(limits ? { limits } : {}), accountId });
  const createKey = async (name = 'default', accountId = 'acct_1') => accountService.createKey(accountId, name);
  const record = (keyId: string): ApiKeyRecord => {
    const found = keys.byKeyId(keyId);
    if (!found) throw new Error(`no record of ${keyId}`);
    return found;
  };
  /**
   * A request of the key through the real limiter (a fresh container each time). The subject
   * carries limits the authorizer may hold from its cache; they deliberately differ from every
   * plan's, to show the stored ones apply.
   */
  const send = (keyId: string, accountId = 'acct_1') =>
    new RateLimiter(limiter, clock).consume({
      kind: 'key',
      keyId,
      accountId,
      limits: { perMinute: 7, perDay: 7 },
      ban: config.plans.free.ban,
    });
  return {
    accounts,
    keys,
    limiter,
    accountLimits,
    gateway,
    clock,
    accountService,
    everything,
    data,
    createAccount,
    createKey,
    record,
    send,
  };
}

/** The HttpProblem a promise rejects with (the test fails if it resolves or rejects with something else). */
export async function refusal(promise: Promise<unknown>): Promise<HttpProblem> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected an HttpProblem, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpProblem);
  return error as HttpProblem;
}

export function expectInvalid(error: HttpProblem, field: string, message: string): void {
  const { name, code, status, errors } = error;
  expect({ name, code, status, message: error.message, errors }).toEqual({
    name: 'HttpProblem',
    code: 'invalid_request',
    status: 400,
    message: `${field}: ${message}`,
    errors: [{ field, message }],
  });
}
