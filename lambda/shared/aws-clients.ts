import { ConfiguredRetryStrategy } from '@smithy/util-retry';
import { DeadlineHttpHandler } from './deadline.js';
import { tracer } from './powertools.js';

/** Every SDK client of the Lambdas goes through `traced`: each call an X-Ray subsegment under the handler's. */
export function traced<C>(client: C): C {
  return tracer.captureAWSv3Client(client);
}

/** The request path (DynamoDB, SQS): the SDK's standard retries, 3 attempts, none hanging longer than 2 s. */
export const DATA_PLANE = { retryMode: 'standard', maxAttempts: 3 } as const;
const DATA_PLANE_TIMEOUTS = { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true } as const;

/** DATA_PLANE with its own HTTP handler, which aborts attempts at the request's deadline (deadline.ts). */
export function dataPlane() {
  return { ...DATA_PLANE, requestHandler: new DeadlineHttpHandler(DATA_PLANE_TIMEOUTS) };
}

/** Management APIs (API Gateway, CloudFront, ACM, …) have low fixed rate limits: adaptive mode slows down after a throttle. */
export const MANAGEMENT_PLANE = { retryMode: 'adaptive', maxAttempts: 8 } as const;

/** API Gateway accepts one UpdateUsagePlan per usage plan every 20 s. */
export const USAGE_PLAN_UPDATE_FLOOR_MS = 20_000;

/** UpdateUsagePlan's retries: the 20 s floor plus a jittered exponential step (1 s, 2 s, … at most 20 s). */
export function usagePlanUpdateRetry(random: () => number = Math.random): ConfiguredRetryStrategy {
  return new ConfiguredRetryStrategy(
    MANAGEMENT_PLANE.maxAttempts,
    (attempt) => USAGE_PLAN_UPDATE_FLOOR_MS + Math.round(random() * Math.min(20_000, 1_000 * 2 ** (attempt - 1))),
  );
}
