import { SQSClient } from '@aws-sdk/client-sqs';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda';
import type { MessageEnvelope } from '../lambda/messages/message.js';
import type { Clock } from '../lambda/shared/clock.js';
import { DATA_PLANE, traced } from '../lambda/shared/aws-clients.js';
import { LOCAL_AWS, LOCAL_TABLE_NAMES } from '../local/emulators.js';
import type { LocalPlatform } from '../local/platform.js';
import { type AwsCall, meter } from './aws-meter.js';

type Invoke<E, R> = (event: E, context: Context) => Promise<R>;

/**
 * The Messages API handlers as the Lambdas build them (authorizer, send, worker), on SDK clients
 * configured as theirs and metered by their middleware stacks (aws-meter.ts), pointed at the local
 * platform's emulators and tables. The platform does not expose its own clients, hence the copy.
 * `queued` collects what the send handlers enqueued, for the worker's events.
 */
export async function meteredHandlers(platform: LocalPlatform, clock: Clock) {
  const { createAuthorizerHandler } = await import('../lambda/keys/authorizer-handler.js');
  const { DynamoDbKeyStore } = await import('../lambda/keys/dynamodb-key-store.js');
  const { createSendMessageHandler } = await import('../lambda/messages/http-handlers.js');
  const { DynamoDbIdempotencyStore } = await import('../lambda/messages/dynamodb-idempotency-store.js');
  const { DynamoDbMessageStore } = await import('../lambda/messages/dynamodb-message-store.js');
  const { SqsMessageQueue } = await import('../lambda/messages/sqs-message-queue.js');
  const { createWorkerHandler } = await import('../lambda/messages/worker.js');
  const { DynamoDbLimiterStore } = await import('../lambda/rate-limits/dynamodb-limiter-store.js');
  const { RateLimiter } = await import('../lambda/rate-limits/rate-limiter.js');
  const { createDocumentClient } = await import('../lambda/shared/dynamodb.js');
  const { DynamoDbUsageHistoryStore } = await import('../lambda/usage-history/dynamodb-usage-history-store.js');

  const calls: AwsCall[] = [];
  const documentClient = createDocumentClient({ ...LOCAL_AWS, endpoint: platform.endpoints.dynamodb });
  meter(documentClient, calls);
  // The batch's BatchWriteItem client, without SDK retries, as lambda/messages/send-handler.ts builds it.
  const singleAttemptClient = createDocumentClient({
    ...LOCAL_AWS,
    endpoint: platform.endpoints.dynamodb,
    maxAttempts: 1,
  });
  meter(singleAttemptClient, calls);
  const sqsClient = traced(new SQSClient({ ...DATA_PLANE, ...LOCAL_AWS, endpoint: platform.endpoints.sqs }));
  meter(sqsClient, calls);

  const queued: MessageEnvelope[] = [];
  const sqsQueue = new SqsMessageQueue(sqsClient, platform.queues.queueUrl);
  const messages = new DynamoDbMessageStore(documentClient, LOCAL_TABLE_NAMES.messages, singleAttemptClient);
  const { config } = platform;
  const send = createSendMessageHandler({
    limiter: new RateLimiter(new DynamoDbLimiterStore(documentClient, LOCAL_TABLE_NAMES.rateLimits), clock),
    messages,
    queue: {
      send: async (envelope) => {
        await sqsQueue.send(envelope);
        queued.push(envelope);
      },
    },
    idempotency: new DynamoDbIdempotencyStore(documentClient, LOCAL_TABLE_NAMES.idempotency),
    clock,
    config: config.messages,
    anonymousLimits: config.anonymous,
  }) as unknown as Invoke<APIGatewayProxyEvent, APIGatewayProxyResult>;
  // POST /messages/batch on the same metered clients (round-trips.ts, cost-per-million.ts).
  const { createSendBatchHandler } = await import('../lambda/messages/http-handlers.js');
  const sendBatch = createSendBatchHandler({
    limiter: new RateLimiter(new DynamoDbLimiterStore(documentClient, LOCAL_TABLE_NAMES.rateLimits), clock),
    messages,
    queue: {
      sendAll: async (envelopes) => {
        await sqsQueue.sendAll(envelopes);
        queued.push(...envelopes);
      },
    },
    idempotency: new DynamoDbIdempotencyStore(documentClient, LOCAL_TABLE_NAMES.idempotency),
    clock,
    config: config.messages,
    anonymousLimits: config.anonymous,
  }) as unknown as Invoke<APIGatewayProxyEvent, APIGatewayProxyResult>;
  const worker = createWorkerHandler({
    messages,
    clock,
    maxReceiveCount: config.messages.maxReceiveCount,
    usageHistory: new DynamoDbUsageHistoryStore(documentClient, LOCAL_TABLE_NAMES.rateLimits),
  }) as unknown as Invoke<SQSEvent, SQSBatchResponse>;
  const authorizer = createAuthorizerHandler({
    keys: new DynamoDbKeyStore(documentClient, LOCAL_TABLE_NAMES.apiKeys),
    pooledUsageKeys: { free: 'v1', pro: 'v2', business: 'v3', enterprise: 'v4', anonymous: 'v5' },
    limits: { plans: config.plans, anonymous: config.anonymous },
    clock,
    keyCacheSeconds: config.auth.keyCacheSeconds,
  }) as unknown as Invoke<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult>;

  return {
    calls,
    queued,
    documentClient,
    send,
    sendBatch,
    worker,
    authorizer,
    destroy: () => {
      documentClient.destroy();
      singleAttemptClient.destroy();
      sqsClient.destroy();
    },
  };
}
