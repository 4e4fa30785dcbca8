import { MetricUnit } from '@aws-lambda-powertools/metrics';
import * as z from 'zod/mini';
import type { Clock } from '../shared/clock.js';
import { logger, metrics } from '../shared/powertools.js';
import type { AcceptedTally } from '../usage-history/index.js';
import type { MessageStore, Transition } from './ports.js';

export interface QueuedMessage {
  readonly body: string;
  /** The message id, also carried as a message attribute so a corrupt body can still be marked failed. */
  readonly messageIdAttribute: string | undefined;
  readonly receiveCount: number;
}

export interface ProcessMessageDeps {
  readonly messages: MessageStore;
  readonly clock: Clock;
  /** Receives before SQS dead-letters a message (the queue's maxReceiveCount). */
  readonly maxReceiveCount: number;
  /** The batch's accepted messages for the usage history (the worker writes them after the batch). */
  readonly accepted?: AcceptedTally;
}

/**
 * Counts an accepted message once: on the first transition out of `queued` that this call made.
 * A redriven failed message (failed → processed) was counted when it failed.
 */
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

/**
 * An envelope without a record comes from a request answered 503. The record write runs alongside
 * the enqueue, so an early delivery may not see it yet; by this delivery (two visibility timeouts
 * later) it has long been written or given up, and the envelope is dropped.
 */
const ORPHAN_AFTER_RECEIVES = 3;

export class PoisonMessageError extends Error {
  override name = 'PoisonMessageError';
}

/**
 * Processes one queued message, idempotently on its id: queued → processed happens once, and a
 * redelivery of a processed message is a no-op. A failure on the last allowed receive marks the
 * record `failed` before SQS moves the message to the DLQ; a redrive later processes it.
 */
export async function processMessage(message: QueuedMessage, deps: ProcessMessageDeps): Promise<void> {
  try {
    await processOnce(message, deps);
  } catch (error) {
    const id = message.messageIdAttribute;
    if (id && message.receiveCount >= deps.maxReceiveCount) {
      countAccepted(await deps.messages.markFailed(id, new Date(deps.clock.now()).toISOString()), deps);
      metrics.addMetric('MessageFailed', MetricUnit.Count, 1);
      logger.error('message failed on its last attempt; it goes to the DLQ', { messageId: id, error: error as Error });
    } else {
      logger.warn('message processing failed; it will be retried', {
        messageId: id,
        receiveCount: message.receiveCount,
      });
    }
    throw error;
  }
}

async function processOnce(message: QueuedMessage, deps: ProcessMessageDeps): Promise<void> {
  let envelope: z.infer<typeof envelopeSchema>;
  try {
    envelope = envelopeSchema.parse(JSON.parse(message.body));
  } catch {
    throw new PoisonMessageError('the queued envelope is not one this worker understands');
  }
  const transition = await deps.messages.markProcessed(envelope.id, new Date(deps.clock.now()).toISOString());
  const result = transition.result;
  countAccepted(transition, deps);
  if (result === 'updated') {
    metrics.addMetric('MessageProcessed', MetricUnit.Count, 1);
    return;
  }
  if (result === 'already_done') {
    logger.info('duplicate delivery of a processed message ignored', { messageId: envelope.id });
    return;
  }
  // No record: either its write is still in flight, or the request was answered 503 (orphan).
  if (message.receiveCount >= ORPHAN_AFTER_RECEIVES) {
    metrics.addMetric('OrphanDropped', MetricUnit.Count, 1);
    logger.warn('dropping an envelope whose request was not accepted', { messageId: envelope.id });
    return;
  }
  throw new Error(`record ${envelope.id} not visible yet`);
}
