import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { callerFromContext } from '../keys/index.js';
import { type ApiResult, problemResult, ResponseHeaders, toProxyResult } from '../shared/http.js';
import { withDeadline } from '../shared/deadline.js';
import { powertools, TIMEOUT_EARLY_MS } from '../shared/middleware.js';
import { listMessages, readAccountMessage } from './account-messages.js';
import { type ApiRequestContext, keyedRead, type ReadMessageDeps, unrouted } from './read-message.js';
import { type SendBatchDeps, sendBatch } from './send-batch.js';
import { type SendMessageDeps, type SendRequest, sendMessage } from './send-message.js';

/** The headers every answer of an invocation carries (rate-limit headers), by its Lambda context. */
const responseHeaders = new WeakMap<Context, ResponseHeaders>();
const headersOf = (context: Context) => responseHeaders.get(context) ?? new ResponseHeaders();

type Route = (event: APIGatewayProxyEvent, party: ApiRequestContext, headers: ResponseHeaders) => Promise<ApiResult>;

/** API Gateway's request id (X-Request-Id, the logs' correlation_id); Lambda's outside API Gateway. */
const requestIdOf = (event: APIGatewayProxyEvent, context: Context): string =>
  event.requestContext?.requestId ?? context.awsRequestId;

function partyOf(event: APIGatewayProxyEvent): ApiRequestContext {
  const caller = callerFromContext(event.requestContext?.authorizer);
  // Never the Authorization header or the key itself: the key id identifies the caller in logs.
  return {
    caller,
    sourceIp: event.requestContext?.identity?.sourceIp ?? 'unknown',
    log: caller.kind === 'key' ? { keyId: caller.keyId } : {},
  };
}

/** Collects the invocation's rate-limit headers, and answers any failure as problem+json with them (shared/http.ts). */
function problemDetails(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context> {
  return {
    before: (request) => {
      responseHeaders.set(request.context, new ResponseHeaders());
    },
    onError: (request) => {
      const { event, context, error } = request;
      // Set, not returned: the Powertools middlewares' onError still run (trace, metrics, log keys).
      request.response = problemResult(error, headersOf(context), requestIdOf(event, context), partyOf(event).log);
    },
  };
}

/** Time kept after the work's deadline for undoing writes that did not complete (send-message.ts, writeOrUndo). */
const UNDO_RESERVE_MS = 3_000;

/**
 * The middy chain of every API function. The route runs under a deadline (shared/deadline.ts) that
 * ends its SDK calls before middy's early answer: no 503 while a write may still land.
 */
function apiHandler(route: Route) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>({
    timeoutEarlyInMillis: TIMEOUT_EARLY_MS,
  })
    .use(powertools())
    .use(problemDetails())
    .handler(async (event, context) => {
      const headers = headersOf(context);
      const answer = async () =>
        toProxyResult(await route(event, partyOf(event), headers), headers, requestIdOf(event, context));
      // Answered before middy's early timeout, with the margin of one event-loop turn.
      const answerInMs = context.getRemainingTimeInMillis?.() - TIMEOUT_EARLY_MS - 50;
      return Number.isFinite(answerInMs) ? withDeadline(answerInMs, UNDO_RESERVE_MS, answer) : answer();
    });
}

/** requestContext.path is the path as the client sent it (with the stage); event.path is without. */
function basePathOf(event: APIGatewayProxyEvent): string {
  const full = event.requestContext?.path ?? event.path;
  return full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : '';
}

const sendRequestOf = (event: APIGatewayProxyEvent, party: ApiRequestContext): SendRequest => ({
  ...party,
  basePath: basePathOf(event),
  headers: event.headers ?? {},
  body: event.body,
  isBase64Encoded: event.isBase64Encoded,
});

export function createSendMessageHandler(deps: SendMessageDeps) {
  return apiHandler((event, party, headers) => sendMessage(sendRequestOf(event, party), deps, headers));
}

export function createSendBatchHandler(deps: SendBatchDeps) {
  return apiHandler((event, party, headers) => sendBatch(sendRequestOf(event, party), deps, headers));
}

/** The send function serves both POST routes, told apart by their API Gateway resource. */
export function createSendRoutesHandler(deps: SendMessageDeps & SendBatchDeps) {
  return apiHandler((event, party, headers) =>
    event.resource === '/messages/batch'
      ? sendBatch(sendRequestOf(event, party), deps, headers)
      : sendMessage(sendRequestOf(event, party), deps, headers),
  );
}

/** The read function serves both GET routes, told apart by their resource: the log, or one message of the account. */
export function createGetMessageHandler(deps: ReadMessageDeps) {
  return apiHandler((event, party, headers) =>
    keyedRead(party, deps, headers, (accountId) =>
      event.resource === '/messages'
        ? listMessages(accountId, event.queryStringParameters ?? {}, deps)
        : readAccountMessage(accountId, event.pathParameters?.id ?? '', deps),
    ),
  );
}

export function createFallbackHandler(deps: Omit<ReadMessageDeps, 'messages'>) {
  return apiHandler((event, party, headers) => unrouted({ ...party, path: event.path ?? '/' }, deps, headers));
}
