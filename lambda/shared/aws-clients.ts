import { ConfiguredRetryStrategy } from '@smithy/util-retry';
import { DeadlineHttpHandler } from './deadline.js';
import { tracer } from './powertools.js';

/**
 * Every AWS SDK v3 client of the Lambdas goes through `traced`: with active tracing each call is an
 * X-Ray subsegment under the handler's (authorizer → handler → DynamoDB/SQS). Create clients once
 * per container (module scope), from one of the configurations below.
 */
export function traced<C>(client: C): C {
  return tracer.captureAWSv3Client(client);
}

/**
 * The request path (DynamoDB, SQS): the SDK's standard retries (throttling, 5xx, network errors;
 * 3 attempts with jittered backoff of at most 0.1 s, 0.2 s, and the retry quota), no attempt
 * hanging longer than 2 s, and every attempt of an API request aborted at the request's deadline
 * (`dataPlane()`'s handler, lambda/shared/deadline.ts), which ends before the function's early answer.
 */
export const DATA_PLANE = { retryMode: 'standard', maxAttempts: 3 } as const;
const DATA_PLANE_TIMEOUTS = { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true } as const;

/** A request-path client's configuration: DATA_PLANE with its own deadline-aware HTTP handler. */
export function dataPlane() {
  return { ...DATA_PLANE, requestHandler: new DeadlineHttpHandler(DATA_PLANE_TIMEOUTS) };
}

/**
 * Management APIs (API Gateway, CloudFront, ACM, the KeyValueStore, Step Functions, S3): their
 * rate limits are low and fixed (CreateApiKey 5/s), so adaptive mode, whose client-side rate
 * limiter slows down after a throttle, with up to 8 attempts (backoff capped at 20 s).
 */
export const MANAGEMENT_PLANE = { retryMode: 'adaptive', maxAttempts: 8 } as const;

/** API Gateway accepts one UpdateUsagePlan per usage plan every 20 s. */
export const USAGE_PLAN_UPDATE_FLOOR_MS = 20_000;

/**
 * For the API Gateway client that sends UpdateUsagePlan: every retry waits at least the 20 s
 * floor, plus a jittered exponential step (1 s, 2 s, … capped at 20 s), 8 attempts in all.
 */
export function usagePlanUpdateRetry(random: () => number = Math.random): ConfiguredRetryStrategy {
  return new ConfiguredRetryStrategy(
    MANAGEMENT_PLANE.maxAttempts,
    (attempt) => USAGE_PLAN_UPDATE_FLOOR_MS + Math.round(random() * Math.min(20_000, 1_000 * 2 ** (attempt - 1))),
  );
}
