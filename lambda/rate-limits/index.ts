/**
 * The public module of the rate-limits capability (the exact limiter). Keep it cheap to import: bundles take in every module
 * re-exported here, so nothing may pull zod or a management-API client into the request path.
 */
export { AccountLimits, type AccountUsage } from './account-limits.js';
export { DynamoDbLimiterStore } from './dynamodb-limiter-store.js';
export { decisionHeaders } from './headers.js';
export { refusalCountsOf, utcDate } from './limiter-item.js';
export type { LimiterStore } from './limiter-store.js';
export type { KeySubject, LimiterDecision } from './limiter-decision.js';
export { RateLimiter } from './rate-limiter.js';
export { anonymousItemId, keyItemId } from './shards.js';
export { dayWindowEndMs, minuteWindowEndMs, windowsAt } from './windows.js';
