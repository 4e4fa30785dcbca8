import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MessageRetries } from './ports.js';

/** The backoff: a failed record's visibility timeout becomes the delay (at most 12 hours from the receive). */
export class SqsMessageRetries implements MessageRetries {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async postpone(receiptHandle: string, seconds: number): Promise<void> {
    await this.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.max(0, Math.min(43_200, Math.round(seconds))),
      }),
    );
  }
}
