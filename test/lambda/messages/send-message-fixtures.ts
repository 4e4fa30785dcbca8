import { expect } from 'vitest';
import type { KeyCaller } from '../../../lambda/keys/caller.js';
import type { SendMessageDeps, SendRequest } from '../../../lambda/messages/send-message.js';
import { MemoryLimiterStore } from '../../support/memory-limiter-store.js';
import { AccountLimits } from '../../../lambda/rate-limits/account-limits.js';
import { RateLimiter } from '../../../lambda/rate-limits/rate-limiter.js';
import { ManualClock } from '../../support/clock.js';
import type { ApiResult } from '../../../lambda/shared/http.js';
import { HttpProblem } from '../../../lambda/shared/problem.js';
import { loadConfig, type RateLimits } from '../../../lib/config/index.js';
import { FakeIdempotencyStore, FakeMessageQueue, FakeMessageStore } from '../../support/message-fakes.js';

// Shared by send-message.test.ts and send-message-idempotency.test.ts: sendMessage over fakes of its ports.

/** 2026-11-21 10:15:30.123 UTC. */
export const T0 = Date.UTC(2026, 10, 21, 10, 15, 30, 123);
export const T0_ISO = '2026-11-21T10:15:30.123Z';
export const MINUTE_END_SEC = Date.UTC(2026, 10, 21, 10, 16, 0) / 1000;
export const IP = '203.0.113.7';
export const config = loadConfig();

export async function setup(limits: RateLimits = config.plans.free.limits, anonymousLimits = config.anonymous) {
  const clock = new ManualClock(T0);
  const limiterStore = new MemoryLimiterStore();
  const limiter = new RateLimiter(limiterStore, clock);
  const messages = new FakeMessageStore();
  const queue = new FakeMessageQueue();
  const idempotency = new FakeIdempotencyStore();
  const deps: SendMessageDeps = {
    limiter,
    messages,
    queue,
    idempotency,
    clock,
    config: config.messages,
    anonymousLimits,
  };
  const caller: KeyCaller = {
    kind: 'key',
    keyId: 'key_1',
    accountId: 'acct_1',
    plan: 'free',
    limits,
    ban: config.plans.free.ban,
  };
  // The account's budget, as the account service provisions it.
  const accountLimits = new AccountLimits(limiterStore);
  await accountLimits.provision('acct_1', limits, clock.now());
  const request = (overrides: Partial<SendRequest> = {}): SendRequest => ({
    caller,
    sourceIp: IP,
    basePath: '',
    headers: { 'Content-Type': 'application/json' },
    body: '{"message":"Hello, world"}',
    isBase64Encoded: false,
    ...overrides,
  });
  const withKey = (idempotencyKey: string, body = '{"message":"Hello, world"}') =>
    request({ headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey }, body });
  /** The account's counts in the current windows (the key's own share is the same: it is the account's only key). */
  const counts = async () => {
    const usage = await accountLimits.usage('acct_1', clock.now());
    return { minute: usage.minute, day: usage.day };
  };
  return { clock, limiterStore, accountLimits, limiter, messages, queue, idempotency, deps, request, withKey, counts };
}

/** The HttpProblem a promise rejects with (the test fails if it resolves or rejects with something else). */
export async function rejection(promise: Promise<unknown>): Promise<HttpProblem> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected an HttpProblem, got ${JSON.stringify(value)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpProblem);
  return error as HttpProblem;
}

export const idOf = (result: ApiResult) => (result.body as { id: string }).id;
