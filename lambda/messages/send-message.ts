import { createHash } from 'node:crypto';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { KeyCaller } from '../keys/index.js';
import type { Clock } from '../shared/clock.js';
import type { ApiResult, ResponseHeaders } from '../shared/http.js';
import { logger, metrics } from '../shared/powertools.js';
import { monotonicUlid } from '../shared/ulid.js';
import { beforeAnswer } from '../shared/deadline.js';
import { HttpProblem, problems } from '../shared/problem.js';
import { type AccessDeps, rejected } from './access.js';
import { admit, type Verdict } from './admission.js';
import { envelopeOf, type MessageRecord, toAcceptedMessage } from './message.js';
import type { IdempotencyEntry, IdempotencyStore, MessageQueue, MessageStore } from './ports.js';
import type { ApiRequestContext } from './read-message.js';
import { type RawRequest, validateSendRequest } from './validation.js';

export interface MessagesConfig {
  readonly maxBodyBytes: number;
  readonly idempotencyTtlSeconds: number;
  readonly retentionDays: number;
  readonly maxReceiveCount: number;
}

export interface SendMessageDeps extends AccessDeps {
  readonly messages: MessageStore;
  readonly queue: MessageQueue;
  readonly idempotency: IdempotencyStore;
  readonly clock: Clock;
  readonly config: MessagesConfig;
}

export interface SendRequest extends RawRequest, ApiRequestContext {
  /** Path prefix the API is served under (e.g. /v1 on the execute-api URL), for Location. */
  readonly basePath: string;
}

export const newMessageId = (nowMs: number) => `msg_${monotonicUlid(nowMs)}`;

/** A new message's record: `queued`, kept `retentionDays` (DynamoDB TTL). */
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

/** The claim of a send's Idempotency-Key, if any: the body's fingerprint (another is a 409), the 202 to replay. */
export function idempotencyClaim(
  caller: KeyCaller,
  key: string | undefined,
  nowMs: number,
  config: MessagesConfig,
  claim: Pick<IdempotencyEntry, 'messageId' | 'responseBody' | 'location'> & { readonly body: unknown },
): IdempotencyEntry | undefined {
  if (key === undefined) return undefined;
  const { body, ...rest } = claim;
  return {
    id: `${caller.keyId}#${key}`,
    requestHash: createHash('sha256').update(JSON.stringify(body)).digest('hex'),
    statusCode: 202,
    createdAtMs: nowMs,
    expiresAt: Math.floor(nowMs / 1000) + config.idempotencyTtlSeconds,
    ...rest,
  };
}

/**
 * POST /messages: a pure parse, the admission (admission.ts), then the record write and the
 * enqueue side by side. A 202 means the message is queued; any failure before it leaves no record
 * that claims `queued` and gives the budget back.
 */
export async function sendMessage(
  request: SendRequest,
  deps: SendMessageDeps,
  headers: ResponseHeaders,
): Promise<ApiResult> {
  const nowMs = deps.clock.now();
  let record: MessageRecord | undefined;
  const verdict = await admit(
    request,
    {
      validate: () => validateSendRequest(request, deps.config.maxBodyBytes),
      units: () => 1,
      claimOf: (caller, valid) => {
        record = queuedRecord(caller, valid.message, nowMs, deps.config.retentionDays);
        return idempotencyClaim(caller, valid.idempotencyKey, nowMs, deps.config, {
          body: { message: valid.message },
          messageId: record.id,
          responseBody: JSON.stringify(toAcceptedMessage(record)),
          location: `${request.basePath}/messages/${record.id}`,
        });
      },
    },
    deps,
    headers,
  );
  if (verdict.outcome === 'replay') return replayedSend(verdict.existing);
  const queued = record as MessageRecord;

  await writeOrUndo(
    {
      kind: 'message',
      write: () => [deps.messages.create(queued), deps.queue.send(envelopeOf(queued))],
      undo: async () => ((await deps.messages.remove(queued.id)) ? [] : [queued.id]),
      ids: [queued.id],
      log: { ...request.log, messageId: queued.id },
      unavailable: 'The message could not be queued and was not accepted; nothing was stored. Retry with backoff.',
      unknown:
        'The message could not be queued, and whether it was stored is not known. Look it up with GET /messages/{id} ' +
        '(its id is in messageIds) before you send it again, or send it with an Idempotency-Key.',
    },
    verdict,
    deps,
    headers,
  );
  metrics.addMetric('MessageAccepted', MetricUnit.Count, 1);
  // DEBUG only: an INFO line per accepted send was the largest log cost (bench/README.md).
  logger.debug('message accepted', { ...request.log, messageId: queued.id });
  return {
    statusCode: 202,
    headers: { Location: `${request.basePath}/messages/${queued.id}` },
    body: toAcceptedMessage(queued),
  };
}

interface Writes {
  readonly kind: 'message' | 'batch';
  /** The record write(s), then the enqueue: started together, one round trip for both. */
  readonly write: () => readonly [Promise<void>, Promise<void>];
  /** Takes the records back out while still queued; answers the ids the worker had already taken. */
  readonly undo: () => Promise<readonly string[]>;
  readonly ids: readonly string[];
  readonly log: Readonly<Record<string, unknown>>;
  readonly unavailable: string;
  readonly unknown: string;
}

/**
 * The writes of an admitted send, side by side. When either fails, the records are taken back
 * before the answer's deadline, and the answer follows what is known (a 503 only when no message
 * of it can be processed): all removed, the budget and the claim are given back, 503 (the worker
 * drops an envelope without a record as an orphan); all already taken by the worker, 202; some
 * taken or the removal failed, a 500 naming the ids to look up rather than a 503 inviting a duplicate.
 */
export async function writeOrUndo(
  writes: Writes,
  admitted: Extract<Verdict<unknown>, { outcome: 'admitted' }>,
  deps: Pick<SendMessageDeps, 'limiter' | 'idempotency'>,
  headers: ResponseHeaders,
): Promise<void> {
  const { decision, claim } = admitted;
  const [stored, queued] = await Promise.allSettled(writes.write());
  // The limiter's tidying (rare) overlapped the writes above; nothing stays in flight after the answer.
  if (decision.housekeeping) await decision.housekeeping;
  if (stored.status === 'fulfilled' && queued.status === 'fulfilled') return;
  const [undone] = await beforeAnswer(() => Promise.allSettled([writes.undo()]));
  const taken = undone.status === 'fulfilled' ? undone.value : undefined;
  logger.error(`${writes.kind} not accepted; compensating`, {
    ...writes.log,
    messages: writes.ids.length,
    storeError: stored.status === 'rejected' ? String(stored.reason) : undefined,
    queueError: queued.status === 'rejected' ? String(queued.reason) : undefined,
    undoError: undone.status === 'rejected' ? String(undone.reason) : undefined,
    alreadyTaken: taken?.length,
  });
  if (taken && taken.length === writes.ids.length) return;
  if (!taken || taken.length > 0) {
    rejected('outcome_unknown');
    throw new HttpProblem({
      status: 500,
      code: 'internal_error',
      detail: writes.unknown,
      extensions: { messageIds: writes.ids },
    });
  }
  const consumption = decision.consumption;
  const [refund] = await beforeAnswer(() =>
    Promise.allSettled([
      consumption ? deps.limiter.refund(consumption) : Promise.resolve(),
      claim ? deps.idempotency.release(claim.id, claim.messageId) : Promise.resolve(),
    ]),
  );
  // The headers say the request did not count only when the refund took effect.
  if (refund.status === 'rejected') {
    logger.warn('refund failed; the request still counts', { ...writes.log, error: String(refund.reason) });
  } else if (consumption) {
    headers.set(refundedHeaders(headers, writes.ids.length));
  }
  rejected('unavailable');
  throw problems.unavailable(writes.unavailable);
}

/** After a refund the `units` requests no longer count: Remaining goes back up. */
function refundedHeaders(headers: ResponseHeaders, units: number): Record<string, string> {
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
