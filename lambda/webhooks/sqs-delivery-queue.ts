import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { chunksOf } from '../shared/backoff.js';
import type { DeliveryJob } from './model.js';
import type { DeliveryQueue } from './ports.js';

/**
 * The delivery queue. A batch entry SQS failed is not retried here: notify rejects, the worker
 * retries, and the jobs enqueued the first time are dropped as duplicates when they claim their attempt.
 */
export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async enqueueAll(jobs: readonly DeliveryJob[]): Promise<void> {
    // SendMessageBatch takes at most 10 entries.
    await Promise.all(
      chunksOf(jobs, 10).map(async (chunk) => {
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
