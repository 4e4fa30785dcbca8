import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { MiddlewareObj } from '@middy/core';
import { logger, metrics, tracer } from './powertools.js';

/** middy answers a TimeoutError this long before the function's deadline (the APIs map it to a 503). */
export const TIMEOUT_EARLY_MS = 50;

/** The Powertools middlewares every handler starts with (docs/operators/deploy.md describes the chain). */
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
