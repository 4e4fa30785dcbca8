import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { chunksOf, type Pacing, REAL_PACING, untilAllTaken } from '../shared/backoff.js';
import type { MessageEnvelope } from './message.js';
import type { MessageBatchQueue, MessageQueue } from './ports.js';

/** SendMessageBatch takes at most 10 entries. */
const SEND_BATCH_MAX = 10;

/**
 * A batch's envelopes become visible to the worker only once the request that sent them has
 * settled: the send function's timeout (10 s, PlatformFunction's default in
 * lib/constructs/shared/platform-function.ts). Records and envelopes go out side by side, so
 * without the delay the worker could process a message whose batch then fails in another chunk
 * and is answered 503; by then its records are deleted and the envelopes are dropped as orphans.
 */
export const BATCH_SETTLE_SECONDS = 10;

export class SqsMessageQueue implements MessageQueue, MessageBatchQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
    /** The waits between a batch's attempts (a fake clock in tests). */
    private readonly pacing: Pacing = REAL_PACING,
  ) {}

  async send(envelope: MessageEnvelope): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(envelope),
        MessageAttributes: { messageId: { DataType: 'String', StringValue: envelope.id } },
      }),
    );
  }

  /**
   * Chunks of 10 side by side, delayed until the request settled (BATCH_SETTLE_SECONDS); entries
   * SQS failed on its side are sent again with backoff. A
   * duplicate envelope (an SDK retry of a request that did land) is harmless: the worker
   * processes a message once by its id.
   */
  async sendAll(envelopes: readonly MessageEnvelope[]): Promise<void> {
    await Promise.all(
      chunksOf(envelopes, SEND_BATCH_MAX).map((chunk) =>
        untilAllTaken(
          chunk,
          (pending) => this.sendChunk(pending),
          (left) => new EnqueueError(left.length),
          this.pacing,
        ),
      ),
    );
  }

  private async sendChunk(pending: readonly MessageEnvelope[]): Promise<readonly MessageEnvelope[]> {
    const out = await this.client.send(
      new SendMessageBatchCommand({
        QueueUrl: this.queueUrl,
        Entries: pending.map((envelope, i) => ({
          Id: String(i),
          DelaySeconds: BATCH_SETTLE_SECONDS,
          MessageBody: JSON.stringify(envelope),
          MessageAttributes: { messageId: { DataType: 'String', StringValue: envelope.id } },
        })),
      }),
    );
    const failed = out.Failed ?? [];
    const ours = failed.find((f) => f.SenderFault);
    if (ours) throw new EnqueueError(failed.length, `${ours.Code ?? 'unknown'}: ${ours.Message ?? ''}`);
    return failed.map((f) => pending[Number(f.Id)] as MessageEnvelope);
  }
}

export class EnqueueError extends Error {
  constructor(
    readonly left: number,
    reason = 'failed on the queue\'s side after the retries',
  ) {
    super(`SendMessageBatch: ${left} envelopes not enqueued (${reason})`);
    this.name = 'EnqueueError';
  }
}
