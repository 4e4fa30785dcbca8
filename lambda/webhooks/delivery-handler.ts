import { SQSClient } from '@aws-sdk/client-sqs';
import { WEBHOOK_DELIVERY_SOURCE, WEBHOOK_ENV } from '../../contracts/webhooks.js';
import { DATA_PLANE, traced } from '../shared/aws-clients.js';
import { systemClock } from '../shared/clock.js';
import { requireEnv } from '../shared/env.js';
import { documentClient } from '../shared/runtime.js';
import { createDeliveryHandler } from './delivery-worker.js';
import { DynamoDbWebhookStore } from './dynamodb-webhook-store.js';
import { createWebhookPoster } from './http-sender.js';
import { AWS_DELIVERY_POLICY } from './network-policy.js';
import { ATTEMPT_TIMEOUT_MS } from './retry-schedule.js';
import { SqsDeliveryQueue } from './sqs-delivery-queue.js';

/** The delivery function on AWS: https only, public addresses only (AWS_DELIVERY_POLICY). */
export const handler = createDeliveryHandler({
  store: new DynamoDbWebhookStore(documentClient, requireEnv(WEBHOOK_ENV.webhooksTable)),
  queue: new SqsDeliveryQueue(traced(new SQSClient(DATA_PLANE)), requireEnv(WEBHOOK_ENV.deliveryQueueUrl)),
  post: createWebhookPoster(AWS_DELIVERY_POLICY, { timeoutMs: ATTEMPT_TIMEOUT_MS }),
  clock: systemClock,
  staleClaimMs: WEBHOOK_DELIVERY_SOURCE.functionTimeoutSeconds * 1000,
});
