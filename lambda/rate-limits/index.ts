/** The rate-limits capability's public module. Cheap to import: no zod or management-API client on the request path. */
export { AccountLimits, type AccountUsage } from './account-limits.js';
export { DynamoDbLimiterStore } from './dynamodb-limiter-store.js';
export { rateLimitHeaders } from './headers.js';
export { refusalCountsOf, utcDate } from './limiter-item.js';
export type { LimiterStore } from './limiter-store.js';
export type { KeySubject, LimiterDecision } from './limiter-decision.js';
export { RateLimiter } from './rate-limiter.js';
export { anonymousItemId, keyItemId } from './shards.js';
export { dayWindowEndMs, minuteWindowEndMs, windowsAt } from './windows.js';
