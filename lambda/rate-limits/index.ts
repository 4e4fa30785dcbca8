/**
 * The public module of the rate-limits capability (the exact limiter): what the other capabilities
 * (messages, keys, the control API) use of it. Other folders of lambda/ import it through this file only.
 */
export { AccountLimits, type AccountUsage } from './account-limits.js';
export { DynamoDbLimiterStore } from './dynamodb-limiter-store.js';
export { decisionHeaders } from './headers.js';
export type { LimiterStore } from './limiter-store.js';
export { type KeySubject, type LimiterDecision, RateLimiter } from './rate-limiter.js';
export { anonymousItemId, keyItemId } from './shards.js';
export { dayWindowEndMs, minuteWindowEndMs, windowsAt } from './windows.js';
