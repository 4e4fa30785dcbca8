/** The webhooks construct's contract with its functions: handler entry, environment, table keys, event source. */
export const WEBHOOK_HANDLER_ENTRIES = {
  delivery: 'lambda/webhooks/delivery-handler.ts',
} as const;

export const WEBHOOK_ENV = {
  webhooksTable: 'WEBHOOKS_TABLE',
  deliveryQueueUrl: 'WEBHOOK_DELIVERY_QUEUE_URL',
} as const;

/**
 * One table for endpoints (pk `account#<accountId>`, sk `webhook#<webhookId>`) and deliveries
 * with their attempts (pk `message#<messageId>` or `webhook#<webhookId>` for test events,
 * sk `delivery#<eventId>#<webhookId>`), deliveries kept as long as their message (TTL).
 */
export const WEBHOOK_TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk', ttl: 'expiresAt' } as const;

/**
 * The delivery function's SQS event source: 10 jobs per invocation, handled side by side (each
 * waits at most 15 s for its endpoint). The function's timeout covers one batch with margin, and
 * the queue's visibility timeout is six times that, as AWS advises for Lambda event sources.
 */
export const WEBHOOK_DELIVERY_SOURCE = {
  batchSize: 10,
  functionTimeoutSeconds: 40,
  visibilityTimeoutSeconds: 240,
} as const;

/** Account-wide limit of webhook endpoints (issue 24: "at most 10 endpoints per account"). */
export const MAX_WEBHOOK_ENDPOINTS = 10;
