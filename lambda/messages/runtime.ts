import { ENV } from '../../contracts/messages.js';
import type { LimitsConfig } from '../keys/index.js';
import { DynamoDbLimiterStore, RateLimiter } from '../rate-limits/index.js';
import { systemClock } from '../shared/clock.js';
import { requireEnv, requireJsonEnv } from '../shared/env.js';
import { documentClient } from '../shared/runtime.js';

/** The Messages API functions' limiter and limits, from their environment, once per cold start. */
export const limitsConfig = () => requireJsonEnv<LimitsConfig>(ENV.limitsConfig);

export const limiterFromEnv = () =>
  new RateLimiter(new DynamoDbLimiterStore(documentClient, requireEnv(ENV.rateLimitsTable)), systemClock);
