/**
 * The public module of the rate-limits capability (the exact limiter): what the other capabilities
 * (messages, keys, usage-history) use of it. Other capabilities import it through this
 * file only.
 *
 * Keep it cheap to import: a Lambda bundle takes in every module re-exported here (esbuild keeps
 * their top-level code), so nothing here may pull lib/config's schemas (zod) or a management-API
 * client into the request path. The control API's handler (lambda/control), which wires every
 * capability's adapters and services, imports those modules directly.
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
