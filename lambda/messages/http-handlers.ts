import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { callerFromContext } from '../keys/caller.js';
import { type ApiResult, problemResult, ResponseHeaders, toProxyResult } from '../shared/http.js';
import { flushMetrics } from '../shared/powertools.js';
import { type ApiRequestContext, type ReadMessageDeps, readMessage, unrouted } from './read-message.js';
import { type SendMessageDeps, sendMessage } from './send-message.js';

/** Who is calling, read once per request from the authorizer's context and the source IP. */
type RequestParty = ApiRequestContext;

type Route = (event: APIGatewayProxyEvent, party: RequestParty, headers: ResponseHeaders) => Promise<ApiResult>;

/** Answer this long before the function's timeout, as a 503 the client may retry, rather than be killed by Lambda. */
const TIMEOUT_EARLY_MS = 5;

class EarlyTimeoutError extends Error {
  constructor() {
    super('The function was about to time out; the request was abandoned.');
    // Answered as a dependency failure (503): a call that never returned is what runs out the clock.
    this.name = 'TimeoutError';
  }
}

interface InFlight {
  readonly deadline: number;
  readonly abandon: (error: Error) => void;
}

/**
 * Invocations in flight and one timer for the earliest deadline among them. A timer per invocation
 * (what middy does) costs more than a request's own work; deadlines only grow, so this one timer is
 * set about once per function timeout. On Lambda there is one invocation at a time; the local
 * platform runs many.
 */
const inFlight = new Set<InFlight>();
let watchdog: ReturnType<typeof setTimeout> | undefined;
let watchdogAt = Infinity;

function armWatchdog(): void {
  let earliest = Infinity;
  for (const entry of inFlight) if (entry.deadline < earliest) earliest = entry.deadline;
  if (earliest >= watchdogAt) return;
  if (watchdog !== undefined) clearTimeout(watchdog);
  watchdogAt = earliest;
  if (earliest === Infinity) {
    watchdog = undefined;
    return;
  }
  watchdog = setTimeout(() => {
    watchdog = undefined;
    watchdogAt = Infinity;
    const now = Date.now();
    for (const entry of inFlight) {
      if (entry.deadline <= now) {
        inFlight.delete(entry);
        entry.abandon(new EarlyTimeoutError());
      }
    }
    armWatchdog();
  }, earliest - Date.now());
  // Never what keeps a process (the local platform, a test) alive.
  watchdog.unref?.();
}

/** The route's answer, or an EarlyTimeoutError shortly before the function's deadline. */
function withDeadline<T>(routed: Promise<T>, context: Context): Promise<T> {
  const remainingMs = context.getRemainingTimeInMillis?.();
  if (remainingMs === undefined) return routed;
  return new Promise<T>((resolve, reject) => {
    const entry: InFlight = { deadline: Date.now() + remainingMs - TIMEOUT_EARLY_MS, abandon: reject };
    inFlight.add(entry);
    if (entry.deadline < watchdogAt) armWatchdog();
    routed.then(
      (value) => {
        inFlight.delete(entry);
        resolve(value);
      },
      (error: unknown) => {
        inFlight.delete(entry);
        reject(error);
      },
    );
  });
}

/** Publishes the invocation's buffered metrics when it ends, answered or not. */
function publishMetrics(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> {
  return { after: flushMetrics, onError: flushMetrics };
}

/**
 * The middy chain of every API function: request and key ids in the log lines, the collected
 * rate-limit headers on every answer, problems (and anything unexpected) as problem+json, an answer
 * before the function times out, and the invocation's metrics published at its end. The chain is
 * kept thin on purpose: the Powertools middlewares (context injection, key stores, metric
 * validation) and middy's per-invocation early-timeout timer cost several times the route's own
 * work on every call, so the frame passes ids explicitly, buffers metrics, and shares one
 * deadline timer (bench/README.md, handler overhead).
 */
function apiHandler(route: Route) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>({ timeoutEarlyInMillis: 0 })
    .use(publishMetrics())
    .handler((event, context) => frame(route, event, context));
}

async function frame(route: Route, event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> {
  const requestContext = event.requestContext;
  const requestId = requestContext?.requestId ?? context.awsRequestId;
  const headers = new ResponseHeaders();
  const caller = callerFromContext(requestContext?.authorizer);
  // Never the Authorization header or the key itself: the key id identifies the caller in logs.
  const party: RequestParty = {
    caller,
    sourceIp: requestContext?.identity?.sourceIp ?? 'unknown',
    log: {
      requestId,
      function_request_id: context.awsRequestId,
      ...(caller.kind === 'key' ? { keyId: caller.keyId } : {}),
    },
  };
  try {
    const result = await withDeadline(route(event, party, headers), context);
    return toProxyResult(result, headers, requestId);
  } catch (error) {
    return problemResult(error, headers, requestId, party.log);
  }
}

// The routes' requests are written out field by field: on Node 20's V8 an object spread followed
// by more properties ({ ...party, basePath }) costs microseconds, more than the rest of the request.

/** requestContext.path is the path as the client sent it (with the stage); event.path is without. */
function basePathOf(event: APIGatewayProxyEvent): string {
  const full = event.requestContext?.path ?? event.path;
  return full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : '';
}

export function createSendMessageHandler(deps: SendMessageDeps) {
  return apiHandler((event, party, headers) =>
    sendMessage(
      {
        caller: party.caller,
        sourceIp: party.sourceIp,
        log: party.log,
        basePath: basePathOf(event),
        headers: event.headers ?? {},
        body: event.body,
        isBase64Encoded: event.isBase64Encoded,
      },
      deps,
      headers,
    ),
  );
}

export function createGetMessageHandler(deps: ReadMessageDeps) {
  return apiHandler((event, party, headers) =>
    readMessage(
      {
        caller: party.caller,
        sourceIp: party.sourceIp,
        log: party.log,
        id: event.pathParameters?.id ?? '',
      },
      deps,
      headers,
    ),
  );
}

export function createFallbackHandler(deps: Omit<ReadMessageDeps, 'messages'>) {
  return apiHandler((event, party, headers) =>
    unrouted(
      {
        caller: party.caller,
        sourceIp: party.sourceIp,
        log: party.log,
        path: event.path ?? '/',
      },
      deps,
      headers,
    ),
  );
}
