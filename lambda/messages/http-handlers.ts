import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { callerFromContext } from '../keys/caller.js';
import {
  type ApiResult,
  apiResponses,
  type ResponseHeaders,
  responseHeadersOf,
  toProxyResult,
} from '../shared/http.js';
import { logger, metrics } from '../shared/powertools.js';
import { type ApiRequestContext, type ReadMessageDeps, readMessage, unrouted } from './read-message.js';
import { type SendMessageDeps, sendMessage } from './send-message.js';

/** Who is calling, read once per request from the authorizer's context and the source IP. */
type RequestParty = ApiRequestContext;

type Route = (event: APIGatewayProxyEvent, party: RequestParty, headers: ResponseHeaders) => Promise<ApiResult>;

/** The middy chain shared by the API's functions: logging with request/key ids, metrics, problem answers. */
function apiHandler(route: Route) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(logMetrics(metrics))
    .use(apiResponses())
    .handler(async (event, context) => {
      const caller = callerFromContext(event.requestContext?.authorizer);
      const requestId = event.requestContext?.requestId ?? context.awsRequestId;
      // Never the Authorization header or the key itself: the key id identifies the caller in logs.
      logger.appendKeys({ requestId, keyId: caller.kind === 'key' ? caller.keyId : undefined });
      const headers = responseHeadersOf(context);
      const party = { caller, sourceIp: event.requestContext?.identity?.sourceIp ?? 'unknown' };
      return toProxyResult(await route(event, party, headers), headers, requestId);
    });
}

/** requestContext.path is the path as the client sent it (with the stage); event.path is without. */
function basePathOf(event: APIGatewayProxyEvent): string {
  const full = event.requestContext?.path ?? event.path;
  return full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : '';
}

export function createSendMessageHandler(deps: SendMessageDeps) {
  return apiHandler((event, party, headers) =>
    sendMessage(
      {
        ...party,
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
        ...party,
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
        ...party,
        path: event.path ?? '/',
      },
      deps,
      headers,
    ),
  );
}
