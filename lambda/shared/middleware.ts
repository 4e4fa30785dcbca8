import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj } from '@middy/core';
import { logger, metrics, tracer } from './powertools.js';

/** middy answers a TimeoutError this long before the function's deadline (the APIs map it to a 503). */
export const TIMEOUT_EARLY_MS = 50;

/**
 * The Powertools middlewares every handler starts with: the Lambda context in every log line
 * (cold_start, function name, request ids, API Gateway's request id as correlation id) and the
 * keys reset after each invocation; the invocation's metrics published at its end, with a
 * ColdStart metric; the handler as an X-Ray subsegment (the SDK clients' calls nest under it, see
 * aws-clients.ts).
 */
export function powertools(): MiddlewareObj[] {
  return [
    injectLambdaContext(logger, { resetKeys: true, logEvent: false }),
    {
      before: ({ event }) => {
        const requestId = (event as { requestContext?: { requestId?: unknown } } | null)?.requestContext?.requestId;
        if (typeof requestId === 'string' && requestId) logger.setCorrelationId(requestId);
      },
    },
    logMetrics(metrics, { captureColdStartMetric: true }),
    // Answers carry customers' messages: they stay out of the trace.
    captureLambdaHandler(tracer, { captureResponse: false }),
  ];
}
