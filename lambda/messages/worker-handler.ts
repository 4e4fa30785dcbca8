// The operator's processor, bundled in (contracts/messages.ts, PROCESSOR_IMPORT).
import { processMessage as processor } from '@platform/processor';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ENV } from '../../contracts/messages.js';
import { DATA_PLANE, traced } from '../shared/aws-clients.js';
import { systemClock } from '../shared/clock.js';
import { requireEnv, requireJsonEnv } from '../shared/env.js';
import { documentClient } from '../shared/runtime.js';
import { DynamoDbUsageHistoryStore } from '../usage-history/index.js';
import { DynamoDbMessageStore } from './dynamodb-message-store.js';
import type { MessagesConfig } from './send-message.js';
import { SqsMessageRetries } from './sqs-message-retries.js';
import { createWorkerHandler } from './worker.js';
import { WEBHOOK_ENV } from '../../contracts/webhooks.js';
import { createWebhookOutcomes, DynamoDbWebhookStore, SqsDeliveryQueue } from '../webhooks/index.js';

const messages = new DynamoDbMessageStore(documentClient, requireEnv(ENV.messagesTable));
const sqs = traced(new SQSClient(DATA_PLANE));

export const handler = createWorkerHandler({
  messages,
  clock: systemClock,
  maxReceiveCount: requireJsonEnv<MessagesConfig>(ENV.messagesConfig).maxReceiveCount,
  usageHistory: new DynamoDbUsageHistoryStore(documentClient, requireEnv(ENV.rateLimitsTable)),
  processor,
  retries: new SqsMessageRetries(sqs, requireEnv(ENV.queueUrl)),
  // Final outcomes feed the owners' webhooks, when the stack connected them (Webhooks.connectWorker).
  ...(process.env[WEBHOOK_ENV.webhooksTable] === undefined
    ? {}
    : {
        outcomes: createWebhookOutcomes({
          store: new DynamoDbWebhookStore(documentClient, requireEnv(WEBHOOK_ENV.webhooksTable)),
          queue: new SqsDeliveryQueue(sqs, requireEnv(WEBHOOK_ENV.deliveryQueueUrl)),
          clock: systemClock,
          messages: {
            ownerOf: async (id) => {
              const record = await messages.get(id);
              return record ? { accountId: record.accountId, expiresAt: record.expiresAt } : undefined;
            },
          },
        }),
      }),
});
