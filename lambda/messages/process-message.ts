import { MetricUnit } from '@aws-lambda-powertools/metrics';
import * as z from 'zod/mini';
import { type MessageOutcomes, type RetryBackoff, retryDelaySeconds } from '../../contracts/messages.js';
import { type Clock, nowIso } from '../shared/clock.js';
import { logger, metrics } from '../shared/powertools.js';
import type { AcceptedTally } from '../usage-history/index.js';
import { type MessageRecord, toMessageResource } from './message.js';
import type { AttemptRecord, MessageRetries, MessageStore, Transition } from './ports.js';
import { isPermanentError, type JsonValue, type ProcessMessage, RESULT_MAX_BYTES } from './processor.js';
import { sanitizeError } from './sanitize-error.js';

export interface QueuedMessage {
  readonly body: string;
  /** Also a message attribute, so that a corrupt body can still be marked failed. */
  readonly messageIdAttribute: string | undefined;
  readonly receiveCount: number;
  readonly receiptHandle?: string;
}

export interface ProcessMessageDeps {
  readonly messages: MessageStore;
  readonly clock: Clock;
  /** The queue's maxReceiveCount. */
  readonly maxReceiveCount: number;
  /** The batch's accepted messages, for the usage history. */
  readonly accepted?: AcceptedTally;
  /** @default accepts every message */
  readonly processor?: ProcessMessage;
  /** @default none: the queue's visibility timeout */
  readonly retries?: MessageRetries;
  /** @default RETRY_BACKOFF */
  readonly backoff?: RetryBackoff;
  /** Told of every final outcome (webhooks). @default nobody */
  readonly outcomes?: MessageOutcomes;
}

/** Counts an accepted message once: on the first transition out of `queued`, made by this call. */
function countAccepted(transition: Transition, deps: ProcessMessageDeps): void {
  const before = transition.before;
  if (transition.result === 'updated' && before?.status === 'queued') {
    deps.accepted?.count(before.accountId, before.keyId, before.createdAt);
  }
}

const envelopeSchema = z.object({
  v: z.literal(1),
  id: z.string().check(z.regex(/^msg_[0-9A-Z]{26}$/)),
  accountId: z.string().check(z.minLength(1)),
  createdAt: z.string(),
});

/** By this receive an envelope's record has long been written, unless its request failed (503): an orphan. */
const ORPHAN_AFTER_RECEIVES = 3;

export class PoisonMessageError extends Error {
  override name = 'PoisonMessageError';
}

/** The processor's attempt failed (thrown, or a result too large to keep); `cause` is what it threw. */
class AttemptError extends Error {
  override name = 'AttemptError';
  constructor(
    readonly attempt: { readonly attempts: number; readonly lastError: string },
    override readonly cause: unknown,
  ) {
    super(attempt.lastError);
  }
}

/** Telling the outcome failed: the delivery is retried, the processor is not run again. */
class NotifyError extends Error {
  override name = 'NotifyError';
  constructor(override readonly cause: unknown) {
    super(`the outcome could not be told: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/** Runs the processor on a message, records and tells the outcome (docs/processor.md, "Retries, backoff and the DLQ"). */
export async function processMessage(message: QueuedMessage, deps: ProcessMessageDeps): Promise<void> {
  try {
    await processOnce(message, deps);
  } catch (error) {
    const id = message.messageIdAttribute;
    const attempt = error instanceof AttemptError ? error.attempt : undefined;
    if (id && message.receiveCount >= deps.maxReceiveCount && !(error instanceof NotifyError)) {
      const failure: AttemptRecord = attempt ?? { lastError: sanitizeError(error) };
      const transition = await deps.messages.markFailed(id, nowIso(deps.clock), failure);
      countAccepted(transition, deps);
      metrics.addMetric('MessageFailed', MetricUnit.Count, 1);
      logger.error('message failed on its last attempt; it goes to the DLQ', { messageId: id, error: error as Error });
      // The message goes to the DLQ whatever this answers; a redrive tells it again.
      if (transition.after) await notify(deps, transition.after).catch(() => undefined);
    } else {
      if (id && attempt) {
        await deps.messages.recordFailedAttempt(id, attempt).catch((failure: unknown) => {
          logger.warn('could not record the failed attempt', { messageId: id, error: failure as Error });
        });
      }
      await postpone(message, deps, attempt?.attempts ?? message.receiveCount);
      logger.warn('message processing failed; it will be retried', {
        messageId: id,
        receiveCount: message.receiveCount,
        error: error instanceof AttemptError ? error.attempt.lastError : (error as Error).message,
      });
    }
    throw error instanceof AttemptError ? error.cause : error instanceof NotifyError ? error.cause : error;
  }
}

/** The backoff: the failed record comes back after the delay, not the visibility timeout. */
async function postpone(message: QueuedMessage, deps: ProcessMessageDeps, failedAttempts: number): Promise<void> {
  if (!deps.retries || !message.receiptHandle) return;
  const seconds = retryDelaySeconds(failedAttempts, deps.backoff);
  // Best effort: without it the message still comes back, after the queue's visibility timeout.
  await deps.retries.postpone(message.receiptHandle, seconds).catch((error: unknown) => {
    logger.warn('could not postpone the retry; the visibility timeout applies', { error: error as Error });
  });
}

async function notify(deps: ProcessMessageDeps, record: MessageRecord): Promise<void> {
  if (!deps.outcomes || (record.status !== 'processed' && record.status !== 'failed')) return;
  const type = record.status === 'processed' ? 'message.processed' : 'message.failed';
  await deps.outcomes.notify(type, toMessageResource(record)).catch((error: unknown) => {
    throw new NotifyError(error);
  });
}

/** Final for a delivery: processed, or failed unless this is a redriven message's first receive. */
const isFinal = (record: MessageRecord, receiveCount: number) =>
  record.status === 'processed' || (record.status === 'failed' && receiveCount > 1);

async function processOnce(message: QueuedMessage, deps: ProcessMessageDeps): Promise<void> {
  let envelope: z.infer<typeof envelopeSchema>;
  try {
    envelope = envelopeSchema.parse(JSON.parse(message.body));
  } catch {
    throw new PoisonMessageError('the queued envelope is not one this worker understands');
  }
  const record = await deps.messages.get(envelope.id);
  if (!record) {
    if (message.receiveCount >= ORPHAN_AFTER_RECEIVES) {
      metrics.addMetric('OrphanDropped', MetricUnit.Count, 1);
      logger.warn('dropping an envelope whose request was not accepted', { messageId: envelope.id });
      return;
    }
    throw new Error(`record ${envelope.id} not visible yet`);
  }
  if (isFinal(record, message.receiveCount)) {
    logger.info('redelivery of a message with a final outcome: told again, not run again', { messageId: envelope.id });
    await notify(deps, record);
    return;
  }

  const attempts = (record.attempts ?? 0) + 1;
  const outcome = await runProcessor(record, attempts, deps);
  const transition =
    outcome.kind === 'done'
      ? await deps.messages.markProcessed(record.id, nowIso(deps.clock), { attempts, ...outcome.result })
      : await deps.messages.markFailed(record.id, nowIso(deps.clock), { attempts, lastError: outcome.lastError });
  countAccepted(transition, deps);
  if (transition.result === 'missing') throw new Error(`record ${record.id} disappeared while it was processed`);
  metrics.addMetric(outcome.kind === 'done' ? 'MessageProcessed' : 'MessageFailed', MetricUnit.Count, 1);
  // Another delivery got there first: tell what it recorded.
  const final = transition.after ?? (await deps.messages.get(record.id));
  if (final) await notify(deps, final);
}

type Outcome = { kind: 'done'; result: { result?: JsonValue } } | { kind: 'permanent'; lastError: string };

async function runProcessor(record: MessageRecord, attempt: number, deps: ProcessMessageDeps): Promise<Outcome> {
  const processor = deps.processor ?? (() => undefined);
  let value: unknown;
  try {
    const { id, accountId, keyId, message, createdAt } = record;
    value = await processor({ id, accountId, keyId, message, createdAt }, { attempt });
  } catch (error) {
    const lastError = sanitizeError(error);
    if (isPermanentError(error)) {
      logger.warn('the processor failed the message permanently', { messageId: record.id, attempt, lastError });
      return { kind: 'permanent', lastError };
    }
    metrics.addMetric('ProcessorAttemptFailed', MetricUnit.Count, 1);
    throw new AttemptError({ attempts: attempt, lastError }, error);
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    const lastError = `the processor's result is not JSON: ${sanitizeError(error)}`;
    throw new AttemptError({ attempts: attempt, lastError }, new Error(lastError));
  }
  // Nothing to keep: undefined, or a value JSON has no text for (a function, a symbol).
  if (json === undefined) return { kind: 'done', result: {} };
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > RESULT_MAX_BYTES) {
    const lastError = `the processor's result is ${bytes} bytes of JSON; at most ${RESULT_MAX_BYTES} are kept`;
    throw new AttemptError({ attempts: attempt, lastError }, new Error(lastError));
  }
  // Through JSON, so what is stored is exactly what a reader gets back (no undefined, no Dates).
  return { kind: 'done', result: { result: JSON.parse(json) as JsonValue } };
}
