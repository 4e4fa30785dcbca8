/** The webhooks capability's public module: what the worker's and the control API's composition use. */
export { createWebhookOutcomes } from './outcomes.js';
export { DynamoDbWebhookStore } from './dynamodb-webhook-store.js';
export { SqsDeliveryQueue } from './sqs-delivery-queue.js';
export { WebhookService } from './webhook-service.js';
export { AWS_DELIVERY_POLICY } from './network-policy.js';
