import { limiterFromEnv, limitsConfig } from './runtime.js';
import { createFallbackHandler } from './http-handlers.js';

export const handler = createFallbackHandler({ limiter: limiterFromEnv(), anonymousLimits: limitsConfig().anonymous });
