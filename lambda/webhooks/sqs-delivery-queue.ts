import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryJob } from './model.js';
import type { DeliveryQueue } from './ports.js';

/** SendMessageBatch takes at most 10 entries. */
const SEND_BATCH_MAX = 10;

/**
 * The delivery queue. A batch entry SQS failed is not retried here: the caller's notify rejects,
 * the worker retries its message, and the jobs enqueued the first time are dropped as duplicates
 * when they claim their attempt (DeliveryJob.attempt).
 */
export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueueAll(jobs: readonly DeliveryJob[]): Promise<void> {
    const chunks: DeliveryJob[][] = [];
    for (let i = 0; i < jobs.length; i += SEND_BATCH_MAX) chunks.push(jobs.slice(i, i + SEND_BATCH_MAX));
    await Promise.all(
      chunks.map(async (chunk) => {
        const out = await this.client.send(
          new SendMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: chunk.map((job, i) => ({ Id: String(i), MessageBody: JSON.stringify(job) })),
          }),
        );
        const failed = out.Failed ?? [];
        if (failed.length > 0) {
          throw new Error(`SendMessageBatch: ${failed.length} delivery jobs not enqueued (${failed[0]?.Code ?? 'unknown'})`);
        }
      }),
    );
  }

  async enqueueLater(job: DeliveryJob, delaySeconds: number): Promise<void> {
    await this.client.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(job), DelaySeconds: delaySeconds }),
    );
  }
}
