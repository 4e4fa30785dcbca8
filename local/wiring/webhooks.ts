import { WEBHOOK_DELIVERY_SOURCE } from '../../contracts/webhooks.js';
import { messageLogOf } from '../../lambda/control/owner-messages.js';
import { DynamoDbMessageStore } from '../../lambda/messages/dynamodb-message-store.js';
import { createDeliveryHandler } from '../../lambda/webhooks/delivery-worker.js';
import { DynamoDbWebhookStore } from '../../lambda/webhooks/dynamodb-webhook-store.js';
import { createWebhookPoster } from '../../lambda/webhooks/http-sender.js';
import { LOCAL_DELIVERY_POLICY } from '../../lambda/webhooks/network-policy.js';
import { createWebhookOutcomes } from '../../lambda/webhooks/outcomes.js';
import { ATTEMPT_TIMEOUT_MS, MAX_HOP_SECONDS } from '../../lambda/webhooks/retry-schedule.js';
import { SqsDeliveryQueue } from '../../lambda/webhooks/sqs-delivery-queue.js';
import { WebhookService } from '../../lambda/webhooks/webhook-service.js';
import { createQueue, LOCAL_TABLE_NAMES } from '../emulators.js';
import { QueuePoller } from '../queue-poller.js';
import type { Wiring } from './backing-services.js';

export const LOCAL_WEBHOOKS_TABLE = LOCAL_TABLE_NAMES.webhooks;

/** Webhooks: the delivery queue and function, the owners' service and the worker's outcomes (LOCAL_DELIVERY_POLICY). */
export async function startWebhooks({ options, backing, clock, config, services }: Wiring) {
  const { queueUrl, queueArn } = await createQueue(backing.sqsClient, 'webhook-deliveries', {
    maxReceiveCount: config.messages.maxReceiveCount,
    visibilityTimeoutSeconds: 5,
  });
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
  // Off with the worker: the bundle stage invokes the delivery bundle itself.
  if (options.worker ?? true) {
    const poller = new QueuePoller(backing.sqsClient, queueUrl, queueArn, handler, {
      batchSize: WEBHOOK_DELIVERY_SOURCE.batchSize,
      batchingWindowMs: 0,
    });
    poller.start();
    services.push(poller);
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
