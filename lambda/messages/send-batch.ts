import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { LimiterDecision } from '../rate-limits/index.js';
import type { ApiResult, ResponseHeaders } from '../shared/http.js';
import { metrics } from '../shared/powertools.js';
import { HttpProblem } from '../shared/problem.js';
import { rejected } from './access.js';
import { admit } from './admission.js';
import { validateBatchRequest } from './batch-validation.js';
import { envelopeOf, type MessageRecord, toAcceptedMessage } from './message.js';
import type { IdempotencyEntry, MessageBatchQueue, MessageBatchStore, MessageStore } from './ports.js';
import { idempotencyClaim, queuedRecord, type SendMessageDeps, type SendRequest, writeOrUndo } from './send-message.js';

export type SendBatchDeps = Omit<SendMessageDeps, 'messages' | 'queue'> & {
  readonly messages: MessageStore & MessageBatchStore;
  readonly queue: MessageBatchQueue;
};

/** What an Idempotency-Key keeps of a batch's 202: ids and times (the replay brings the same messages). */
interface StoredBatchAnswer {
  readonly data: ReadonlyArray<{ readonly id: string; readonly createdAt: string }>;
}

/** POST /messages/batch (docs/api-clients.md, "Batch send"): admitted and written as a single send. */
export async function sendBatch(
  request: SendRequest,
  deps: SendBatchDeps,
  headers: ResponseHeaders,
): Promise<ApiResult> {
  const nowMs = deps.clock.now();
  let records: MessageRecord[] = [];
  const verdict = await admit(
    request,
    {
      validate: () => validateBatchRequest(request, { maxMessageBytes: deps.config.maxBodyBytes }),
      units: (valid) => valid.messages.length,
      claimOf: (caller, valid) => {
        records = valid.messages.map((message) => queuedRecord(caller, message, nowMs, deps.config.retentionDays));
        const stored: StoredBatchAnswer = { data: records.map((r) => ({ id: r.id, createdAt: r.createdAt })) };
        return idempotencyClaim(caller, valid.idempotencyKey, nowMs, deps.config, {
          // Its own shape: a key used for a single send and then for a batch is another body (409).
          body: { batch: valid.messages },
          messageId: (records[0] as MessageRecord).id,
          responseBody: JSON.stringify(stored),
          location: '',
        });
      },
      rateLimited: batchRateLimited,
    },
    deps,
    headers,
  );
  if (verdict.outcome === 'replay') return replayed(verdict.existing, records.map((r) => r.message));

  await writeOrUndo(
    {
      kind: 'batch',
      // Their chunks run side by side too.
      write: () => [deps.messages.createAll(records), deps.queue.sendAll(records.map(envelopeOf))],
      // Every record goes, written or not (a delete of a missing one is a no-op).
      undo: () => deps.messages.removeAll(records.map((r) => r.id)),
      ids: records.map((r) => r.id),
      log: { ...request.log, firstMessageId: records[0]?.id },
      unavailable: 'The batch could not be queued and was not accepted; none of its messages was stored. Retry it with backoff.',
      unknown:
        'The batch could not be queued, and whether its messages were stored is not known. Look them up with ' +
        'GET /messages/{id} (their ids are in messageIds) before you send them again, or send the batch with an Idempotency-Key.',
    },
    verdict,
    deps,
    headers,
  );
  metrics.addMetric('MessageAccepted', MetricUnit.Count, records.length);
  return { statusCode: 202, body: { data: records.map(toAcceptedMessage) } };
}

/** The first 202, rebuilt from what the key kept and this request's messages (the same body: the hashes matched). */
function replayed(existing: IdempotencyEntry, messages: readonly string[]): ApiResult {
  const stored = JSON.parse(existing.responseBody) as StoredBatchAnswer;
  return {
    statusCode: existing.statusCode,
    headers: { 'Idempotent-Replayed': 'true' },
    body: { data: stored.data.map((m, i) => toAcceptedMessage({ ...m, message: messages[i] as string })) },
  };
}

/** A 429 for the whole batch: what remains in the refusing window, and what to do about it. */
function batchRateLimited(decision: Extract<LimiterDecision, { outcome: 'rate_limited' }>, units: number): HttpProblem {
  rejected('rate_limited');
  const window = decision.state[decision.window];
  const left = Math.max(0, window.limit - window.used);
  const detail =
    window.limit < units
      ? `Your account's limit is ${window.limit} messages per ${decision.window}, so a batch of ${units} can never ` +
      `be accepted: send at most ${window.limit} per batch.`
      : `This batch of ${units} messages needs ${units} of your account's budget for this ${decision.window}, and ` +
        `${left} remain (every key of the account draws on it). Send at most ${left} now, or retry after ` +
        `${decision.retryAfterSeconds} s.`;
  return new HttpProblem({
    status: 429,
    code: 'rate_limited',
    detail,
    headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    extensions: { window: decision.window, retryAfter: decision.retryAfterSeconds, remaining: left, requested: units },
  });
}
