import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { RateLimits } from '../../lib/config/index.js';
import type { Caller, KeyCaller } from '../keys/caller.js';
import { decisionHeaders } from '../rate-limits/headers.js';
import {
  anonymousSubjectId,
  keySubjectId,
  type LimiterDecision,
  type LimiterSubject,
  type RateLimiter,
} from '../rate-limits/rate-limiter.js';
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

/**
 * First step of every route: a caller without a valid key is counted against its IP's anonymous
 * budget and answered 401 (or 429 once that budget is spent), with rate-limit headers either way.
 */
export async function requireKey(
  caller: Caller,
  sourceIp: string,
  deps: AccessDeps,
  headers: ResponseHeaders,
): Promise<KeyCaller> {
  if (caller.kind === 'key') return caller;
  const decision = await deps.limiter.consume({
    id: anonymousSubjectId(sourceIp),
    limits: deps.anonymousLimits,
    kind: 'anonymous',
  });
  headers.set(decisionHeaders(decision));
  if (decision.outcome !== 'allowed') throw refusal(decision);
  rejected('unauthorized');
  throw problems.unauthorized(UNAUTHORIZED_DETAIL[caller.reason]);
}

export function keySubject(caller: KeyCaller): LimiterSubject {
  return { id: keySubjectId(caller.keyId), limits: caller.limits, ban: caller.ban, kind: 'key' };
}

/** Records the decision's headers and throws the refusal, if it is one. */
export function enforce(
  decision: LimiterDecision,
  headers: ResponseHeaders,
): asserts decision is Extract<LimiterDecision, { outcome: 'allowed' }> {
  headers.set(decisionHeaders(decision));
  if (decision.outcome !== 'allowed') throw refusal(decision);
}

export function refusal(decision: Exclude<LimiterDecision, { outcome: 'allowed' }>): HttpProblem {
  switch (decision.outcome) {
    case 'revoked':
      rejected('unauthorized');
      return problems.unauthorized(UNAUTHORIZED_DETAIL.invalid);
    case 'banned':
      rejected('key_banned');
      return new HttpProblem({
        status: 429,
        code: 'key_banned',
        title: 'Too Many Requests',
        detail: `This API key is temporarily banned for continuing to send requests after 429 responses. Retry after ${decision.retryAfterSeconds} s, then back off exponentially when you get a 429.`,
        headers: { 'Retry-After': String(decision.retryAfterSeconds) },
        extensions: { retryAfter: decision.retryAfterSeconds },
      });
    case 'rate_limited':
      rejected('rate_limited');
      return new HttpProblem({
        status: 429,
        code: 'rate_limited',
        title: 'Too Many Requests',
        detail: `Rate limit of your plan exceeded for this ${decision.window}. Retry after ${decision.retryAfterSeconds} s; continuing to send requests can get the key temporarily banned.`,
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
