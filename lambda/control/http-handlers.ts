import { correlationPaths } from '@aws-lambda-powertools/logger/correlationId';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { powertools, TIMEOUT_EARLY_MS } from '../shared/middleware.js';
import { logger } from '../shared/powertools.js';
import { type ControlApi, type ControlResponse, type Principal, problemResponse } from './control-api.js';

export interface ControlApiHandlerOptions {
  /** The dashboard's origin: answers carry Access-Control-Allow-Origin for it. */
  readonly dashboardOrigin?: string;
}

/**
 * The owner behind a request, from the claims API Gateway's Cognito authorizer verified (ID
 * token): `sub` identifies the person, `email` names their first account.
 */
export function ownerFromClaims(
  authorizer: APIGatewayProxyEvent['requestContext']['authorizer'],
): Principal | undefined {
  const claims = (authorizer as { claims?: Record<string, unknown> } | null | undefined)?.claims;
  const sub = claims?.sub;
  if (typeof sub !== 'string' || sub.length === 0) return undefined;
  const email = claims?.email;
  return { kind: 'owner', ownerId: sub, ...(typeof email === 'string' && email ? { email } : {}) };
}

/** API Gateway's query parameters without the absent ones. */
function queryOf(parameters: APIGatewayProxyEvent['queryStringParameters']): Record<string, string> {
  const given = Object.entries(parameters ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return Object.fromEntries(given);
}

/**
 * The control API as a Lambda proxy handler behind API Gateway's Cognito authorizer: the
 * dashboard's backend. Logs carry the request id and the owner id, never tokens or key secrets.
 */
export function createControlApiHandler(api: ControlApi, options: ControlApiHandlerOptions = {}) {
  const cors: Record<string, string> = options.dashboardOrigin
    ? { 'Access-Control-Allow-Origin': options.dashboardOrigin, Vary: 'Origin' }
    : {};
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
    .use(powertools({ correlationIdPath: correlationPaths.API_GATEWAY_REST }))
    .handler(async (event, context) => {
      const requestId = event.requestContext?.requestId ?? context.awsRequestId;
      const principal = ownerFromClaims(event.requestContext?.authorizer);
      logger.appendKeys({ ownerId: principal?.kind === 'owner' ? principal.ownerId : undefined });
      let answer: ControlResponse;
      if (!principal) {
        // Behind the authorizer this cannot happen; answered rather than trusted if it ever does.
        answer = problemResponse(requestId, 401, 'unauthorized', 'Sign in to use the dashboard API.');
      } else {
        const body = event.body === null || event.body === undefined
          ? undefined
          : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
        const contentType = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
        try {
          answer = await api.handle({
            method: event.httpMethod,
            path: event.path,
            ...(contentType ? { contentType } : {}),
            ...(body !== undefined ? { body } : {}),
            query: queryOf(event.queryStringParameters),
            principal,
            requestId,
          });
        } catch (error) {
          logger.error('control API request failed', { error: error as Error, method: event.httpMethod, resource: event.resource });
          answer = problemResponse(requestId, 500, 'internal_error', 'Something went wrong on our side. Try again.');
        }
      }
      if (answer.status >= 500) logger.warn('control API answered a server error', { status: answer.status });
      return { statusCode: answer.status, headers: { ...answer.headers, ...cors }, body: answer.body };
    });
}
