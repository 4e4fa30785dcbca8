import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { WEBHOOK_DELIVERY_SOURCE, WEBHOOK_TABLE_KEYS } from '../../contracts/webhooks.js';
import { messageLogOf } from '../../lambda/control/owner-messages.js';
import { DynamoDbMessageStore } from '../../lambda/messages/dynamodb-message-store.js';
import type { Clock } from '../../lambda/shared/clock.js';
import { createDeliveryHandler } from '../../lambda/webhooks/delivery-worker.js';
import { DynamoDbWebhookStore } from '../../lambda/webhooks/dynamodb-webhook-store.js';
import { createWebhookPoster } from '../../lambda/webhooks/http-sender.js';
import { LOCAL_DELIVERY_POLICY } from '../../lambda/webhooks/network-policy.js';
import { createWebhookOutcomes } from '../../lambda/webhooks/outcomes.js';
import { ATTEMPT_TIMEOUT_MS, MAX_HOP_SECONDS } from '../../lambda/webhooks/retry-schedule.js';
import { SqsDeliveryQueue } from '../../lambda/webhooks/sqs-delivery-queue.js';
import { WebhookService } from '../../lambda/webhooks/webhook-service.js';
import type { PlatformConfig } from '../../lib/config/index.js';
import { LOCAL_AWS, LOCAL_TABLE_NAMES, type RunningService } from '../emulators.js';
import { QueuePoller } from '../queue-poller.js';
import type { BackingServices } from './backing-services.js';

export const LOCAL_WEBHOOKS_TABLE = 'Webhooks';

/** Timing of the local delivery function; tests shorten it to move through the schedule with a ManualClock. */
export interface LocalWebhookOptions {
  /** Longest wait per hop on the local delivery queue. @default 900 (as on AWS) */
  readonly maxHopSeconds?: number;
  /** An attempt without a 2xx within this fails. @default 15 s */
  readonly attemptTimeoutMs?: number;
}

/**
 * Webhooks on the local platform: their table and delivery queue (with its DLQ) on the emulators,
 * the delivery function polled as the SQS event source does on AWS, the owners' service and the
 * worker's outcomes. Receivers may be on loopback, and `http` is allowed (LOCAL_DELIVERY_POLICY).
 */
export async function startWebhooks(
  options: {
    backing: BackingServices;
    clock: Clock;
    config: PlatformConfig;
    webhooks?: LocalWebhookOptions;
    /** Poll the delivery queue (off with the worker: the bundle stage invokes the delivery bundle itself). */
    poll: boolean;
  },
  services: RunningService[],
) {
  const { backing, clock, config } = options;
  await createWebhooksTable(backing.dynamodb.endpoint);
  const queueUrl = await createDeliveryQueues(backing.sqsClient, config.messages.maxReceiveCount);
  const store = new DynamoDbWebhookStore(backing.documentClient, LOCAL_WEBHOOKS_TABLE);
  const queue = new SqsDeliveryQueue(backing.queueClient, queueUrl);
  const messages = new DynamoDbMessageStore(backing.documentClient, LOCAL_TABLE_NAMES.messages);

  const attemptTimeoutMs = options.webhooks?.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const handler = createDeliveryHandler({
    store,
    queue,
    post: createWebhookPoster(LOCAL_DELIVERY_POLICY, { timeoutMs: attemptTimeoutMs }),
    clock,
    maxHopSeconds: options.webhooks?.maxHopSeconds ?? MAX_HOP_SECONDS,
    staleClaimMs: attemptTimeoutMs * 2,
  });
  const queueArn = (
    await backing.sqsClient.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))
  ).Attributes?.QueueArn as string;
  const poller = new QueuePoller(backing.sqsClient, queueUrl, queueArn, handler, {
    batchSize: WEBHOOK_DELIVERY_SOURCE.batchSize,
    waitTimeSeconds: 1,
    batchingWindowMs: 0,
  });
  if (options.poll) {
    poller.start();
    services.push({ endpoint: 'webhook-delivery', stop: () => poller.stop() });
  }

  return {
    store,
    queueUrl,
    queueClient: backing.sqsClient,
    /** The dashboard's message pages over the messages table. */
    messageLog: messageLogOf(messages),
    service: new WebhookService({
      store,
      queue,
      clock,
      policy: LOCAL_DELIVERY_POLICY,
      retentionDays: config.messages.retentionDays,
    }),
    outcomes: createWebhookOutcomes({
      store,
      queue,
      clock,
      messages: {
        ownerOf: async (id) => {
          const record = await messages.get(id);
          return record ? { accountId: record.accountId, expiresAt: record.expiresAt } : undefined;
        },
      },
    }),
  };
}

async function createWebhooksTable(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({ ...LOCAL_AWS, endpoint });
  try {
    const existing = (await client.send(new ListTablesCommand({}))).TableNames ?? [];
    if (existing.includes(LOCAL_WEBHOOKS_TABLE)) return;
    const { partitionKey, sortKey } = WEBHOOK_TABLE_KEYS;
    await client.send(
      new CreateTableCommand({
        TableName: LOCAL_WEBHOOKS_TABLE,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: partitionKey, AttributeType: 'S' },
          { AttributeName: sortKey, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' },
          { AttributeName: sortKey, KeyType: 'RANGE' },
        ],
      }),
    );
  } finally {
    client.destroy();
  }
}

/** The delivery queue and its DLQ, with the redrive policy of the construct. */
async function createDeliveryQueues(sqs: SQSClient, maxReceiveCount: number): Promise<string> {
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: 'webhook-deliveries-dlq' }));
  const dlqArn = (
    await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))
  ).Attributes?.QueueArn;
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: 'webhook-deliveries',
      Attributes: {
        VisibilityTimeout: '5',
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount }),
      },
    }),
  );
  return queue.QueueUrl as string;
}
