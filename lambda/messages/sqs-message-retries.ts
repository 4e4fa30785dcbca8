import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MessageRetries } from './ports.js';

/**
 * The backoff between attempts: a failed record's visibility timeout is set to the delay, so SQS
 * delivers it again after that (ChangeMessageVisibility; "the new timeout period takes effect
 * immediately", at most 12 hours from the receive). The event source mapping's role has
 * sqs:ChangeMessageVisibility already (SqsEventSource grants the consumer actions).
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_ChangeMessageVisibility.html
 */
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
