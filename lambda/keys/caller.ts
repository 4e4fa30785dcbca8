import type { BanPolicy, PlanId, RateLimits } from '../../contracts/plans.js';

/** Why a request has no valid key; each is a 401 with its own explanation. */
export type AnonymousReason = 'missing' | 'malformed' | 'invalid';

export type Caller =
  | {
    readonly kind: 'key';
    readonly keyId: string;
    readonly accountId: string;
    readonly plan: PlanId;
    readonly limits: RateLimits;
    readonly ban: BanPolicy;
  } |
  { readonly kind: 'anonymous'; readonly reason: AnonymousReason };

export type KeyCaller = Extract<Caller, { kind: 'key' }>;

/** Authorizer context values must be flat strings/numbers/booleans. */
export function callerToContext(caller: Caller): Record<string, string | number> {
  if (caller.kind === 'anonymous') return { principal: 'anonymous', reason: caller.reason };
  return {
    principal: 'key',
    keyId: caller.keyId,
    accountId: caller.accountId,
    plan: caller.plan,
    perMinute: caller.limits.perMinute,
    perDay: caller.limits.perDay,
    banThreshold: caller.ban.threshold,
    banDurationSeconds: caller.ban.durationSeconds,
  };
}

/** Reads the caller back from `requestContext.authorizer` (API Gateway stringifies the values). */
export function callerFromContext(context: Record<string, unknown> | null | undefined): Caller {
  if (context?.principal !== 'key') {
    const reason = context?.reason;
    return { kind: 'anonymous', reason: reason === 'malformed' || reason === 'invalid' ? reason : 'missing' };
  }
  return {
    kind: 'key',
    keyId: String(context.keyId),
    accountId: String(context.accountId),
    plan: String(context.plan) as PlanId,
    limits: { perMinute: Number(context.perMinute), perDay: Number(context.perDay) },
    ban: { threshold: Number(context.banThreshold), durationSeconds: Number(context.banDurationSeconds) },
  };
}
