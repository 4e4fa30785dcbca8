import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { KeyCaller } from '../keys/index.js';
import { type KeySubject, type LimiterDecision, rateLimitHeaders } from '../rate-limits/index.js';
import type { Clock } from '../shared/clock.js';
import type { ResponseHeaders } from '../shared/http.js';
import { metrics } from '../shared/powertools.js';
import { HttpProblem, problems, refuse } from '../shared/problem.js';
import { type AccessDeps, enforce, keySubject, refusal, rejected, requireKey } from './access.js';
import type { IdempotencyEntry, IdempotencyStore, MessageStore } from './ports.js';
import type { ApiRequestContext } from './read-message.js';

/** A claim whose request never completed (e.g. the function timed out) is taken over after this. */
const STALE_CLAIM_MS = 30_000;

export interface AdmissionDeps extends AccessDeps {
  readonly idempotency: IdempotencyStore;
  readonly messages: Pick<MessageStore, 'get'>;
  readonly clock: Clock;
}

export interface AdmissionRequest<T> {
  /** Pure: the send's valid content, or the 400/413 it throws (answered after 401 and 429). */
  readonly validate: () => T;
  readonly units: (valid: T) => number;
  readonly claimOf: (caller: KeyCaller, valid: T) => IdempotencyEntry | undefined;
  /** A 429 worded for the send (a batch says what remains). */
  readonly rateLimited?: (decision: Extract<LimiterDecision, { outcome: 'rate_limited' }>, units: number) => HttpProblem;
}

/** A replay of the first answer, or admitted and counted; refusals (401, 429, 400, 413, 409) are thrown. */
export type Verdict<T> =
  | { readonly outcome: 'replay'; readonly existing: IdempotencyEntry } |
  {
    readonly outcome: 'admitted';
    readonly caller: KeyCaller;
    readonly valid: T;
    readonly decision: Extract<LimiterDecision, { outcome: 'allowed' }>;
    readonly claim: IdempotencyEntry | undefined;
  };

/**
 * The admission of a send (401 → 429 → 400 → 413, then 409): one limiter call, which counts an
 * admitted request or judges the others; an Idempotency-Key is claimed before it (one write).
 */
export async function admit<T>(
  party: ApiRequestContext,
  request: AdmissionRequest<T>,
  deps: AdmissionDeps,
  headers: ResponseHeaders,
): Promise<Verdict<T>> {
  const caller = await requireKey(party.caller, party.sourceIp, deps, headers);
  const subject = keySubject(caller);
  let valid: T;
  try {
    valid = request.validate();
  } catch (error) {
    if (!(error instanceof HttpProblem)) throw error;
    // Judged without counting: a refusal of the key (ban, limit) wins.
    enforce(await deps.limiter.peek(subject, 'send'), headers);
    rejected(error.code);
    throw error;
  }

  const units = request.units(valid);
  const claim = request.claimOf(caller, valid);
  const held = claim ? await claimKey(claim, deps) : undefined;
  if (held) {
    enforce(await deps.limiter.peek(subject, 'read'), headers);
    return held();
  }

  const decision = await counted(subject, units, deps, claim);
  headers.set(rateLimitHeaders(decision.state));
  if (decision.outcome === 'allowed') return { outcome: 'admitted', caller, valid, decision, claim };
  const custom = decision.outcome === 'rate_limited' ? request.rateLimited?.(decision, units) : undefined;
  throw custom ?? refusal(decision);
}

/** The counting write, its latency recorded (failed calls too); when nothing is counted the claim is freed. */
async function counted(
  subject: KeySubject,
  units: number,
  deps: AdmissionDeps,
  claim: IdempotencyEntry | undefined,
): Promise<LimiterDecision> {
  const started = performance.now();
  try {
    const decision = await deps.limiter.consume(subject, units);
    if (decision.outcome !== 'allowed' && claim) await deps.idempotency.release(claim.id, claim.messageId);
    return decision;
  } catch (error) {
    if (claim) await deps.idempotency.release(claim.id, claim.messageId).catch(() => {});
    throw error;
  } finally {
    metrics.addMetric('LimiterLatency', MetricUnit.Milliseconds, performance.now() - started);
  }
}

/**
 * Claims the Idempotency-Key; a held key gets the answer of its holder, given once judged as a read (409 for
 * another body, the first answer replayed, 409 while it is in flight); a holder that never completed is taken over.
 */
async function claimKey(claim: IdempotencyEntry, deps: AdmissionDeps): Promise<(() => Verdict<never>) | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const result = await deps.idempotency.claim(claim, deps.clock.now());
    if (result.claimed) return undefined;
    const existing = result.existing;
    if (existing.requestHash !== claim.requestHash) {
      return () => {
        rejected('idempotency_conflict');
        const detail = 'This Idempotency-Key was already used with a different request body. Use a new key for a new message.';
        throw refuse('idempotency_conflict', detail, 409);
      };
    }
    if (await deps.messages.get(existing.messageId)) return () => ({ outcome: 'replay', existing });
    if (deps.clock.now() - existing.createdAtMs < STALE_CLAIM_MS) {
      return () => {
        throw new HttpProblem({
          status: 409,
          code: 'idempotency_in_progress',
          detail: 'A request with this Idempotency-Key is still being processed. Retry shortly.',
          headers: { 'Retry-After': '1' },
        });
      };
    }
    // The earlier request never completed: take its claim over and handle this one as new.
    if (await deps.idempotency.takeOver(existing, claim)) return undefined;
  }
  throw problems.unavailable('The Idempotency-Key is contended; retry shortly.');
}
