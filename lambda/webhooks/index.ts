/** The webhooks capability's public module: what the worker's and the control API's composition use. */
export { WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE, type WebhookView, type Delivery, type WebhookEventType } from './model.js';
export { createWebhookOutcomes, type MessageOutcomes, type MessageOutcomeType } from './outcomes.js';
export type { MessageOwnership, WebhookStore, DeliveryQueue } from './ports.js';
export { DynamoDbWebhookStore } from './dynamodb-webhook-store.js';
export { SqsDeliveryQueue } from './sqs-delivery-queue.js';
export { WebhookService } from './webhook-service.js';
export { AWS_DELIVERY_POLICY, LOCAL_DELIVERY_POLICY, type DeliveryNetworkPolicy } from './network-policy.js';
