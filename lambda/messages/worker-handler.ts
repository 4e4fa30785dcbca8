import { ENV } from '../../contracts/messages.js';
import { systemClock } from '../shared/clock.js';
import { requireEnv, requireJsonEnv } from '../shared/env.js';
import { documentClient } from '../shared/runtime.js';
import { DynamoDbUsageHistoryStore } from '../usage-history/index.js';
import { DynamoDbMessageStore } from './dynamodb-message-store.js';
import type { MessagesConfig } from './send-message.js';
import { createWorkerHandler } from './worker.js';

export const handler = createWorkerHandler({
  messages: new DynamoDbMessageStore(documentClient, requireEnv(ENV.messagesTable)),
  clock: systemClock,
  maxReceiveCount: requireJsonEnv<MessagesConfig>(ENV.messagesConfig).maxReceiveCount,
  usageHistory: new DynamoDbUsageHistoryStore(documentClient, requireEnv(ENV.rateLimitsTable)),
});
