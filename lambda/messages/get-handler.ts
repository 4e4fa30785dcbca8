import { ENV } from '../../contracts/messages.js';
import { requireEnv } from '../shared/env.js';
import { documentClient } from '../shared/runtime.js';
import { limiterFromEnv, limitsConfig } from './runtime.js';
import { DynamoDbMessageStore } from './dynamodb-message-store.js';
import { createGetMessageHandler } from './http-handlers.js';

export const handler = createGetMessageHandler({
  limiter: limiterFromEnv(),
  messages: new DynamoDbMessageStore(documentClient, requireEnv(ENV.messagesTable)),
  anonymousLimits: limitsConfig().anonymous,
});
