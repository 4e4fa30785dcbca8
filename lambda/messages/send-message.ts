import { createHash } from 'node:crypto';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { RateLimits } from '../../contracts/plans.js';
import type { Caller, KeyCaller } from '../keys/index.js';
import type { LimiterDecision, RateLimiter } from '../rate-limits/index.js';
import type { Clock } from '../shared/clock.js';
import type { ApiResult, ResponseHeaders } from '../shared/http.js';
import { logger, metrics } from '../shared/powertools.js';
import { monotonicUlid } from '../shared/ulid.js';
import { HttpProblem, problems } from '../shared/problem.js';
import { admitBody, enforce, type keySubject, rejected } from './access.js';
import { envelopeOf, type MessageRecord, toPublicMessage } from './message.js';
import type { IdempotencyEntry, IdempotencyStore, MessageQueue, MessageStore } from './ports.js';
import { type RawRequest, validateSendRequest } from './validation.js';

export interface MessagesConfig {
  readonly maxBodyBytes: number;
  readonly idempotencyTtlSeconds: number;
  readonly retentionDays: number;
  readonly maxReceiveCount: number;
}

export interface SendMessageDeps {
  readonly limiter: RateLimiter;
  readonly messages: MessageStore;
  readonly queue: MessageQueue;
  readonly idempotency: IdempotencyStore;
  readonly clock: Clock;
  readonly config: MessagesConfig;
  readonly anonymousLimits: RateLimits;
}

export interface SendRequest extends RawRequest {
  readonly caller: Caller;
  readonly sourceIp: string;
  /** Attributes for the request's log lines (request id, key id). */
  readonly log?: Readonly<Record<string, unknown>>;
  /** Path prefix the API is served under (e.g. /v1 on the execute-api URL), for Location. */
  readonly basePath: string;
}

/** A claim whose request never completed (e.g. the function timed out) is taken over after this. */
const STALE_CLAIM_MS = 30_000;

export const newMessageId = (nowMs: number) => `msg_${monotonicUlid(nowMs)}`;

/** A new message's record, as a send writes it: `queued`, kept `retentionDays` (DynamoDB TTL). */
export function queuedRecord(caller: KeyCaller, message: string, nowMs: number, retentionDays: number): MessageRecord {
  return {
    id: newMessageId(nowMs),
    accountId: caller.accountId,
    keyId: caller.keyId,
    message,
    status: 'queued',
    createdAt: new Date(nowMs).toISOString(),
    expiresAt: Math.floor(nowMs / 1000) + retentionDays * 86_400,
  };
}

/**
 * POST /messages. Order of checks: 401 → 429 → 400 → 413. Only an accepted request consumes
 * budget. On the critical path: one limiter write, then the record write and the enqueue side by
 * side (an Idempotency-Key adds its claim before them). A 202 means the message is queued; any
 * failure before it leaves no record that claims `queued` and gives the budget back.
 */
export async function sendMessage(
  request: SendRequest,
  deps: SendMessageDeps,
  headers: ResponseHeaders,
): Promise<ApiResult> {
  const { caller, subject, valid } = await admitBody(request, deps, headers, () =>
    validateSendRequest(request, deps.config.maxBodyBytes),
  );

  const nowMs = deps.clock.now();
  const record = queuedRecord(caller, valid.message, nowMs, deps.config.retentionDays);
  const accepted: ApiResult = {
    statusCode: 202,
    headers: { Location: `${request.basePath}/messages/${record.id}` },
    body: toPublicMessage(record),
  };

  let claim: IdempotencyEntry | undefined;
  if (valid.idempotencyKey !== undefined) {
    claim = {
      id: `${caller.keyId}#${valid.idempotencyKey}`,
      requestHash: createHash('sha256')
        .update(JSON.stringify({ message: valid.message }))
        .digest('hex'),
      messageId: record.id,
      statusCode: accepted.statusCode,
      responseBody: JSON.stringify(accepted.body),
      location: `${request.basePath}/messages/${record.id}`,
      createdAtMs: nowMs,
      expiresAt: Math.floor(nowMs / 1000) + deps.config.idempotencyTtlSeconds,
    };
    const replay = await claimOrReplay(claim, subject, deps, headers);
    if (replay) return replay;
  }

  const decision = await consumeBudget(subject, 1, deps, claim);
  enforce(decision, headers);
  const consumption = decision.consumption;

  // Side by side: one round trip for both.
  const [stored, queued] = await Promise.allSettled([
    deps.messages.create(record),
    deps.queue.send(envelopeOf(record)),
  ]);
  const storeFailure = stored.status === 'rejected' ? stored : undefined;
  const queueFailure = queued.status === 'rejected' ? queued : undefined;
  // The limiter's tidying (rare) overlapped the writes above; nothing stays in flight after the answer.
  if (decision.housekeeping) await decision.housekeeping;
  if (storeFailure || queueFailure) {
    logger.error('message not accepted; compensating', {
      ...request.log,
      messageId: record.id,
      storeError: storeFailure ? String(storeFailure.reason) : undefined,
      queueError: queueFailure ? String(queueFailure.reason) : undefined,
    });
    // A queued envelope without a record is dropped by the worker as an orphan.
    await Promise.allSettled([
      storeFailure ? Promise.resolve() : deps.messages.remove(record.id),
      consumption ? deps.limiter.refund(consumption) : Promise.resolve(),
      claim ? deps.idempotency.release(claim.id, claim.messageId) : Promise.resolve(),
    ]);
    if (consumption) headers.set(refundedHeaders(headers));
    rejected('unavailable');
    throw problems.unavailable(
      'The message could not be queued and was not accepted; nothing was stored. Retry with backoff.',
    );
  }

  metrics.addMetric('MessageAccepted', MetricUnit.Count, 1);
  logger.info('message accepted', { ...request.log, messageId: record.id, keyId: caller.keyId });
  return accepted;
}

/**
 * The one limiter call of a send, for `units` messages, its latency recorded (of failed calls too:
 * a slow or failing table is what operators look for). When nothing is accepted, the
 * Idempotency-Key's claim is freed, so that a retry is handled as new at once.
 */
export async function consumeBudget(
  subject: ReturnType<typeof keySubject>,
  units: number,
  deps: Pick<SendMessageDeps, 'limiter' | 'idempotency'>,
  claim: IdempotencyEntry | undefined,
): Promise<LimiterDecision> {
  const started = performance.now();
  let decision: LimiterDecision;
  try {
    decision = await deps.limiter.consume(subject, units);
  } catch (error) {
    metrics.addMetric('LimiterLatency', MetricUnit.Milliseconds, performance.now() - started);
    if (claim) await deps.idempotency.release(claim.id, claim.messageId).catch(() => {});
    throw error;
  }
  metrics.addMetric('LimiterLatency', MetricUnit.Milliseconds, performance.now() - started);
  if (decision.outcome !== 'allowed' && claim) await deps.idempotency.release(claim.id, claim.messageId);
  return decision;
}

/** After a refund the request (or a batch's `units` requests) no longer counts: Remaining goes back up. */
export function refundedHeaders(headers: ResponseHeaders, units = 1): Record<string, string> {
  const current = headers.all();
  const remaining = Number(current['X-RateLimit-Remaining']);
  const limit = Number(current['X-RateLimit-Limit']);
  if (!Number.isFinite(remaining) || !Number.isFinite(limit)) return {};
  return { 'X-RateLimit-Remaining': String(Math.min(limit, remaining + units)) };
}

/** The first 202 of a single send, replayed. */
const replayedSend = (existing: IdempotencyEntry): ApiResult => ({
  statusCode: existing.statusCode,
  headers: { Location: existing.location, 'Idempotent-Replayed': 'true' },
  body: JSON.parse(existing.responseBody),
});

/**
 * Claims the Idempotency-Key, or answers from the earlier request that holds it (`replayOf` makes
 * that answer; a batch stores less than its whole answer, see send-batch.ts).
 */
export async function claimOrReplay(
  claim: IdempotencyEntry,
  subject: ReturnType<typeof keySubject>,
  deps: Pick<SendMessageDeps, 'idempotency' | 'limiter' | 'messages' | 'clock'>,
  headers: ResponseHeaders,
  replayOf: (existing: IdempotencyEntry) => ApiResult = replayedSend,
): Promise<ApiResult | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const result = await deps.idempotency.claim(claim, deps.clock.now());
    if (result.claimed) return undefined;
    const existing = result.existing;

    // A replay is judged but never counted: only a ban refuses it.
    enforce(await deps.limiter.peek(subject, 'read'), headers);
    if (existing.requestHash !== claim.requestHash) {
      rejected('idempotency_conflict');
      throw problems.conflict(
        'idempotency_conflict',
        'This Idempotency-Key was already used with a different request body. Use a new key for a new message.',
      );
    }
    const original = await deps.messages.get(existing.messageId);
    if (original) return replayOf(existing);
    if (deps.clock.now() - existing.createdAtMs < STALE_CLAIM_MS) {
      throw new HttpProblem({
        status: 409,
        code: 'idempotency_in_progress',
        title: 'Conflict',
        detail: 'A request with this Idempotency-Key is still being processed. Retry shortly.',
        headers: { 'Retry-After': '1' },
      });
    }
    // The earlier request never completed: take its claim over and handle this one as new.
    if (await deps.idempotency.takeOver(existing, claim)) return undefined;
  }
  throw problems.unavailable('The Idempotency-Key is contended; retry shortly.');
}
