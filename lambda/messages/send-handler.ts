import { SQSClient } from '@aws-sdk/client-sqs';
import { ENV } from '../../contracts/messages.js';
import { dataPlane, traced } from '../shared/aws-clients.js';
import { systemClock } from '../shared/clock.js';
import { requireEnv, requireJsonEnv } from '../shared/env.js';
import { createDocumentClient } from '../shared/dynamodb.js';
import { documentClient } from '../shared/runtime.js';
import { limiterFromEnv, limitsConfig } from './runtime.js';
import { DynamoDbIdempotencyStore } from './dynamodb-idempotency-store.js';
import { DynamoDbMessageStore } from './dynamodb-message-store.js';
import { createSendRoutesHandler } from './http-handlers.js';
import type { MessagesConfig } from './send-message.js';
import { SqsMessageQueue } from './sqs-message-queue.js';

/** POST /messages and POST /messages/batch. */
export const handler = createSendRoutesHandler({
  limiter: limiterFromEnv(),
  // A batch's BatchWriteItem goes through a client without SDK retries (DynamoDbMessageStore says why).
  messages: new DynamoDbMessageStore(
    documentClient,
    requireEnv(ENV.messagesTable),
    createDocumentClient({ maxAttempts: 1 }),
  ),
  queue: new SqsMessageQueue(traced(new SQSClient(dataPlane())), requireEnv(ENV.queueUrl)),
  idempotency: new DynamoDbIdempotencyStore(documentClient, requireEnv(ENV.idempotencyTable)),
  clock: systemClock,
  config: requireJsonEnv<MessagesConfig>(ENV.messagesConfig),
  anonymousLimits: limitsConfig().anonymous,
});
