import { SQSClient } from '@aws-sdk/client-sqs';
import { createAuthorizerHandler } from '../lambda/keys/authorizer-handler.js';
import { DynamoDbKeyStore } from '../lambda/keys/dynamodb-key-store.js';
import { DynamoDbIdempotencyStore } from '../lambda/messages/dynamodb-idempotency-store.js';
import { DynamoDbMessageStore } from '../lambda/messages/dynamodb-message-store.js';
import { createSendBatchHandler, createSendMessageHandler } from '../lambda/messages/http-handlers.js';
import type { MessageEnvelope } from '../lambda/messages/message.js';
import { SqsMessageQueue } from '../lambda/messages/sqs-message-queue.js';
import { createWorkerHandler } from '../lambda/messages/worker.js';
import { DynamoDbLimiterStore } from '../lambda/rate-limits/dynamodb-limiter-store.js';
import { RateLimiter } from '../lambda/rate-limits/rate-limiter.js';
import { DATA_PLANE, traced } from '../lambda/shared/aws-clients.js';
import type { Clock } from '../lambda/shared/clock.js';
import { createDocumentClient } from '../lambda/shared/dynamodb.js';
import { DynamoDbUsageHistoryStore } from '../lambda/usage-history/dynamodb-usage-history-store.js';
import { LOCAL_AWS, LOCAL_TABLE_NAMES } from '../local/emulators.js';
import type { LocalPlatform } from '../local/platform.js';
import { type AwsCall, meter } from './aws-meter.js';

/** The Messages API handlers as the Lambdas build them, metered (bench/README.md); `queued`: what they enqueued. */
export function meteredHandlers(platform: LocalPlatform, clock: Clock) {
  const calls: AwsCall[] = [];
  const local = { ...LOCAL_AWS, endpoint: platform.endpoints.dynamodb };
  const documentClient = createDocumentClient(local);
  // The batch's BatchWriteItem client, without SDK retries, as lambda/messages/send-handler.ts builds it.
  const singleAttemptClient = createDocumentClient({ ...local, maxAttempts: 1 });
  const sqsClient = traced(new SQSClient({ ...DATA_PLANE, ...LOCAL_AWS, endpoint: platform.endpoints.sqs }));
  meter(documentClient, calls);
  meter(singleAttemptClient, calls);
  meter(sqsClient, calls);

  const queued: MessageEnvelope[] = [];
  const sqsQueue = new SqsMessageQueue(sqsClient, platform.queues.queueUrl);
  const messages = new DynamoDbMessageStore(documentClient, LOCAL_TABLE_NAMES.messages, singleAttemptClient);
  const { config } = platform;
  const sendDeps = () => ({
    limiter: new RateLimiter(new DynamoDbLimiterStore(documentClient, LOCAL_TABLE_NAMES.rateLimits), clock),
    messages,
    queue: {
      send: async (envelope: MessageEnvelope) => {
        await sqsQueue.send(envelope);
        queued.push(envelope);
      },
      sendAll: async (envelopes: readonly MessageEnvelope[]) => {
        await sqsQueue.sendAll(envelopes);
        queued.push(...envelopes);
      },
    },
    idempotency: new DynamoDbIdempotencyStore(documentClient, LOCAL_TABLE_NAMES.idempotency),
    clock,
    config: config.messages,
    anonymousLimits: config.anonymous,
  });
  const worker = createWorkerHandler({
    messages,
    clock,
    maxReceiveCount: config.messages.maxReceiveCount,
    usageHistory: new DynamoDbUsageHistoryStore(documentClient, LOCAL_TABLE_NAMES.rateLimits),
  });
  const authorizer = createAuthorizerHandler({
    keys: new DynamoDbKeyStore(documentClient, LOCAL_TABLE_NAMES.apiKeys),
    pooledUsageKeys: { free: 'v1', pro: 'v2', business: 'v3', enterprise: 'v4', anonymous: 'v5' },
    limits: { plans: config.plans, anonymous: config.anonymous },
    clock,
    keyCacheSeconds: config.auth.keyCacheSeconds,
  });

  return {
    calls,
    queued,
    documentClient,
    send: createSendMessageHandler(sendDeps()),
    sendBatch: createSendBatchHandler(sendDeps()),
    worker,
    authorizer,
    destroy: () => [documentClient, singleAttemptClient, sqsClient].forEach((client) => client.destroy()),
  };
}
