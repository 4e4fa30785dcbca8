import { ENV } from '../../contracts/messages.js';
import type { LimitsConfig } from '../keys/index.js';
import { DynamoDbLimiterStore, RateLimiter } from '../rate-limits/index.js';
import { systemClock } from './clock.js';
import { createDocumentClient } from './dynamodb.js';
import { requireEnv, requireJsonEnv } from './env.js';

/** Module-scoped AWS clients and ports built from the environment, once per cold start. */
export const documentClient = createDocumentClient();

export const limitsConfig = () => requireJsonEnv<LimitsConfig>(ENV.limitsConfig);

export const limiterFromEnv = () =>
  new RateLimiter(new DynamoDbLimiterStore(documentClient, requireEnv(ENV.rateLimitsTable)), systemClock);
