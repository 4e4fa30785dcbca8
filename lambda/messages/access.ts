import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { RateLimits } from '../../contracts/plans.js';
import type { Caller, KeyCaller } from '../keys/index.js';
import { anonymousItemId, type KeySubject, type LimiterDecision, type RateLimiter, rateLimitHeaders } from '../rate-limits/index.js';
import type { ResponseHeaders } from '../shared/http.js';
import { metrics } from '../shared/powertools.js';
import { HttpProblem, problems } from '../shared/problem.js';

const UNAUTHORIZED_DETAIL: Record<Extract<Caller, { kind: 'anonymous' }>['reason'], string> = {
  missing: 'Missing API key. Send it as "Authorization: Bearer <key>".',
  malformed: 'The Authorization header must use the Bearer scheme: "Authorization: Bearer <key>".',
  invalid: 'The API key is invalid or has been revoked.',
};

export interface AccessDeps {
  readonly limiter: RateLimiter;
  readonly anonymousLimits: RateLimits;
}

/** The 401 of a caller without a valid key, recorded. */
export function unauthorized(reason: Extract<Caller, { kind: 'anonymous' }>['reason']): HttpProblem {
  rejected('unauthorized');
  return problems.unauthorized(UNAUTHORIZED_DETAIL[reason]);
}

/** The caller's key; one without is counted against its IP's anonymous budget: 401, or 429 once that is spent. */
export async function requireKey(
  caller: Caller,
  sourceIp: string,
  deps: AccessDeps,
  headers: ResponseHeaders,
): Promise<KeyCaller> {
  if (caller.kind === 'key') return caller;
  const subject = { kind: 'anonymous', id: anonymousItemId(sourceIp), limits: deps.anonymousLimits } as const;
  const decision = await deps.limiter.consume(subject);
  headers.set(rateLimitHeaders(decision.state));
  throw decision.outcome === 'allowed' ? unauthorized(caller.reason) : refusal(decision, 'anonymous');
}

/** The key draws on its account's budget; a ban or revocation is the key's own. */
export function keySubject(caller: KeyCaller): KeySubject {
  return { kind: 'key', keyId: caller.keyId, accountId: caller.accountId, limits: caller.limits, ban: caller.ban };
}

/** Records the decision's headers and throws the refusal, if it is one. */
export function enforce(
  decision: LimiterDecision,
  headers: ResponseHeaders,
): asserts decision is Extract<LimiterDecision, { outcome: 'allowed' }> {
  headers.set(rateLimitHeaders(decision.state));
  if (decision.outcome !== 'allowed') throw refusal(decision);
}

export function refusal(
  decision: Exclude<LimiterDecision, { outcome: 'allowed' }>,
  budget: 'account' | 'anonymous' = 'account',
): HttpProblem {
  switch (decision.outcome) {
    case 'revoked':
      return unauthorized('invalid');
    case 'banned':
      rejected('key_banned');
      return new HttpProblem({
        status: 429,
        code: 'key_banned',
        detail: `This API key is temporarily banned for continuing to send requests after 429 responses. Retry after ${decision.retryAfterSeconds} s, then back off exponentially when you get a 429.`,
        headers: { 'Retry-After': String(decision.retryAfterSeconds) },
        extensions: { retryAfter: decision.retryAfterSeconds },
      });
    case 'rate_limited':
      rejected('rate_limited');
      return new HttpProblem({
        status: 429,
        code: 'rate_limited',
        detail:
          budget === 'account'
            ? `Your account's rate limit for this ${decision.window} is spent (every key of the account draws on it). Retry after ${decision.retryAfterSeconds} s; continuing to send requests can get this key temporarily banned.`
            : `The budget of requests without a valid API key from your address is spent for this ${decision.window}. Retry after ${decision.retryAfterSeconds} s.`,
        headers: { 'Retry-After': String(decision.retryAfterSeconds) },
        extensions: { window: decision.window, retryAfter: decision.retryAfterSeconds },
      });
  }
}

/** A refused request, by reason: its own EMF document, so the reason dimension stays off the other metrics. */
export function rejected(reason: string): void {
  const single = metrics.singleMetric();
  single.addDimension('reason', reason);
  single.addMetric('RequestRejected', MetricUnit.Count, 1);
}
