import { Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { ENV, TABLE_KEYS } from '../../../contracts/messages.js';
import { WEBHOOK_DELIVERY_SOURCE, WEBHOOK_ENV, WEBHOOK_HANDLER_ENTRIES } from '../../../contracts/webhooks.js';
import { deadLetteredMetric } from '../messages/messages-observability.js';
import { notify, thresholdAlarm } from '../shared/alarms.js';
import { PlatformFunction } from '../shared/platform-function.js';
import type { WebhooksData } from './webhooks-data.js';

export interface WebhooksProps {
  readonly data: WebhooksData;
  /** Where the dead-letter alarm notifies. @default - an alarm without actions */
  readonly alarmTopic?: sns.ITopic;
}

/** Owners' webhooks: the delivery function, its dead-letter alarm, and grants for its feeders and managers. */
export class Webhooks extends Construct {
  readonly delivery: PlatformFunction;
  readonly deadLetterAlarm: cloudwatch.Alarm;
  private readonly data: WebhooksData;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    const { data } = props;
    this.data = data;
    this.delivery = new PlatformFunction(this, 'Delivery', {
      entry: WEBHOOK_HANDLER_ENTRIES.delivery,
      serviceName: 'webhooks-delivery',
      description: 'Signs and POSTs webhook events to owners\' endpoints (public https only), schedules retries',
      timeout: Duration.seconds(WEBHOOK_DELIVERY_SOURCE.functionTimeoutSeconds),
      environment: {
        [WEBHOOK_ENV.webhooksTable]: data.table.tableName,
        [WEBHOOK_ENV.deliveryQueueUrl]: data.deliveryQueue.queueUrl,
      },
    });
    // The endpoint (GetItem), the attempt's claim and record, the failing streak, the disabling (UpdateItem).
    this.delivery.allowItems(data.table, 'GetItem', 'UpdateItem');
    // The next hop or retry of a job. The queue uses SQS-managed SSE, so no kms:* is needed.
    this.delivery.allow(['sqs:SendMessage'], [data.deliveryQueue.queueArn]);
    this.delivery.function.addEventSource(
      new SqsEventSource(data.deliveryQueue, {
        batchSize: WEBHOOK_DELIVERY_SOURCE.batchSize,
        reportBatchItemFailures: true,
      }),
    );

    this.deadLetterAlarm = thresholdAlarm(
      this,
      'DeadLetterQueueAlarm',
      'Webhook delivery jobs were dead-lettered: the delivery function could not reach its table or queue 5 times. ' +
      'Endpoints answering errors do not land here (their attempts are recorded). Fix the cause, then redrive ' +
      'the dead-letter queue to the delivery queue (docs/webhooks.md).',
      deadLetteredMetric(data.deadLetterQueue),
      1,
    );
    notify(props.alarmTopic, this.deadLetterAlarm);
  }

  /** The queue worker's outcomes: the account's endpoints (Query), their delivery jobs (SendMessage). */
  connectWorker(worker: PlatformFunction): void {
    const { data } = this;
    worker.function.addEnvironment(WEBHOOK_ENV.webhooksTable, data.table.tableName);
    worker.function.addEnvironment(WEBHOOK_ENV.deliveryQueueUrl, data.deliveryQueue.queueUrl);
    worker.allowItems(data.table, 'Query');
    worker.allow(['sqs:SendMessage'], [data.deliveryQueue.queueArn]);
  }

  /** The control API: endpoints, deliveries, test events and re-sends; the dashboard's message pages. */
  connectControl(control: PlatformFunction, messagesTable: dynamodb.ITable): void {
    const { data } = this;
    control.function.addEnvironment(ENV.messagesTable, messagesTable.tableName);
    control.allowItems(messagesTable, 'GetItem');
    // The message log: one Query per page on the account index, and nothing else of the index.
    control.allow(['dynamodb:Query'], [`${messagesTable.tableArn}/index/${TABLE_KEYS.messages.accountIndex.name}`]);
    control.function.addEnvironment(WEBHOOK_ENV.webhooksTable, data.table.tableName);
    control.function.addEnvironment(WEBHOOK_ENV.deliveryQueueUrl, data.deliveryQueue.queueUrl);
    control.allowItems(data.table, 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query');
    control.allow(['sqs:SendMessage'], [data.deliveryQueue.queueArn]);
  }
}
