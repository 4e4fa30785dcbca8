import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { chunksOf, type Pacing, REAL_PACING, untilAllTaken } from '../shared/backoff.js';
import type { MessageEnvelope } from './message.js';
import type { MessageBatchQueue, MessageQueue } from './ports.js';

/** A batch's envelopes wait for its request to settle (the send timeout): docs/api-clients.md, "Batch send". */
export const BATCH_SETTLE_SECONDS = 10;

/** The body and the `messageId` attribute (the worker marks a corrupt body's record failed by it). */
const entryOf = (envelope: MessageEnvelope) => ({
  MessageBody: JSON.stringify(envelope),
  MessageAttributes: { messageId: { DataType: 'String', StringValue: envelope.id } },
});

export class SqsMessageQueue implements MessageQueue, MessageBatchQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
    private readonly pacing: Pacing = REAL_PACING,
  ) {}

  async send(envelope: MessageEnvelope): Promise<void> {
    await this.client.send(new SendMessageCommand({ QueueUrl: this.queueUrl, ...entryOf(envelope) }));
  }

  /** Chunks of 10 side by side; entries SQS failed on its side are sent again with backoff. */
  async sendAll(envelopes: readonly MessageEnvelope[]): Promise<void> {
    await Promise.all(
      chunksOf(envelopes, 10).map((chunk) =>
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
        Entries: pending.map((e, i) => ({ Id: String(i), DelaySeconds: BATCH_SETTLE_SECONDS, ...entryOf(e) })),
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
