import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { WEBHOOK_DELIVERY_SOURCE, WEBHOOK_TABLE_KEYS } from '../../../contracts/webhooks.js';
import { platformTable, queueWithDeadLetter } from '../messages/messages-data.js';

/** Webhooks' table (signing secrets included, so the platform can sign; encrypted at rest) and delivery queues. */
export class WebhooksData extends Construct {
  /** Endpoints (with their signing secrets) and deliveries with their attempts. */
  readonly table: dynamodb.Table;
  readonly deliveryQueue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const removalPolicy = RemovalPolicy.RETAIN;
    this.table = platformTable(this, 'Table', { ...WEBHOOK_TABLE_KEYS, removalPolicy });
    [this.deliveryQueue, this.deadLetterQueue] = queueWithDeadLetter(this, 'DeliveryQueue', 'DeliveryDeadLetterQueue', {
      visibilityTimeout: Duration.seconds(WEBHOOK_DELIVERY_SOURCE.visibilityTimeoutSeconds),
      // Only a store or queue failure brings a job back.
      maxReceiveCount: 5,
      removalPolicy,
    });
  }
}
