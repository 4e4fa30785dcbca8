import type { APIGatewayProxyResult } from 'aws-lambda';
import { logger } from './powertools.js';
import { HttpProblem, problems } from './problem.js';

/** Headers gathered while handling a request (rate-limit headers) that every answer carries, errors included. */
export class ResponseHeaders {
  private readonly values: Record<string, string> = {};
  set(headers: Readonly<Record<string, string>>): void {
    Object.assign(this.values, headers);
  }

  /** A copy: every answer adds its own headers to it. */
  all(): Record<string, string> {
    return { ...this.values };
  }
}

export interface ApiResult {
  readonly statusCode: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/**
 * The answer to a failed request: an HttpProblem as itself, a dependency failure as a 503 that may
 * be retried, anything else as a 500 without internals; with the collected headers. `log` is added
 * to the log line (the key id).
 */
export function problemResult(
  error: unknown,
  headers: ResponseHeaders | undefined,
  requestId: string,
  log: Readonly<Record<string, unknown>> = {},
): APIGatewayProxyResult {
  let problem: HttpProblem;
  if (error instanceof HttpProblem) {
    problem = error;
    logger.info('request refused', { ...log, status: problem.status, code: problem.code });
  } else if (isDependencyFailure(error)) {
    // DynamoDB/SQS unreachable, throttled or contended: nothing was accepted; retry is safe.
    logger.error('dependency unavailable', { ...log, error: error as Error });
    problem = problems.unavailable('The service is temporarily unavailable and nothing was accepted. Retry with backoff.');
  } else {
    logger.error('unhandled error', { ...log, error: error as Error });
    const detail = `Something went wrong on our side. Quote request id ${requestId} if you contact support.`;
    problem = new HttpProblem({ status: 500, code: 'internal_error', detail });
  }
  const all = { ...headers?.all(), ...problem.headers, 'Content-Type': 'application/problem+json', 'X-Request-Id': requestId };
  return { statusCode: problem.status, headers: all, body: JSON.stringify(problem.toBody(requestId)) };
}

/** Renders a successful ApiResult with the collected headers. */
export function toProxyResult(result: ApiResult, headers: ResponseHeaders, requestId: string): APIGatewayProxyResult {
  const all = { ...headers.all(), ...result.headers, 'Content-Type': 'application/json', 'X-Request-Id': requestId };
  return { statusCode: result.statusCode, headers: all, body: JSON.stringify(result.body) };
}

/** Percent-decodes a path segment; one that is not valid percent-encoding is taken as is (it names nothing). */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const NETWORK_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** Failures of a dependency (AWS service answers, network errors, limiter contention), as opposed to bugs. */
export function isDependencyFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { $metadata?: unknown; code?: string; name?: string; cause?: unknown };
  if (e.$metadata !== undefined) return true;
  // AbortError: the request's deadline ended an SDK call (lambda/shared/deadline.ts).
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.name === 'LimiterContentionError') return true;
  if (e.code !== undefined && NETWORK_ERROR_CODES.has(e.code)) return true;
  return e.cause !== undefined && e.cause !== error && isDependencyFailure(e.cause);
}
