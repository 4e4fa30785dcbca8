import { SQSClient } from '@aws-sdk/client-sqs';
import { ENV } from '../../contracts/messages.js';
import { DATA_PLANE, traced } from '../shared/aws-clients.js';
import { systemClock } from '../shared/clock.js';
import { requireEnv, requireJsonEnv } from '../shared/env.js';
import { documentClient, limiterFromEnv, limitsConfig } from '../shared/runtime.js';
import { DynamoDbIdempotencyStore } from './dynamodb-idempotency-store.js';
import { DynamoDbMessageStore } from './dynamodb-message-store.js';
import { createSendMessageHandler } from './http-handlers.js';
import type { MessagesConfig } from './send-message.js';
import { SqsMessageQueue } from './sqs-message-queue.js';

export const handler = createSendMessageHandler({
  limiter: limiterFromEnv(),
  messages: new DynamoDbMessageStore(documentClient, requireEnv(ENV.messagesTable)),
  queue: new SqsMessageQueue(traced(new SQSClient(DATA_PLANE)), requireEnv(ENV.queueUrl)),
  idempotency: new DynamoDbIdempotencyStore(documentClient, requireEnv(ENV.idempotencyTable)),
  clock: systemClock,
  config: requireJsonEnv<MessagesConfig>(ENV.messagesConfig),
  anonymousLimits: limitsConfig().anonymous,
});
