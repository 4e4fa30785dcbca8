import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { powertools, TIMEOUT_EARLY_MS } from '../shared/middleware.js';
import { logger } from '../shared/powertools.js';
import { type ControlServices, ControlRouter, type Principal } from './control-router.js';
import { CONTROL_ROUTES } from './routes/index.js';

/** The owner behind a request, from the ID token claims API Gateway's Cognito authorizer verified. */
export function ownerFromClaims(event: Pick<APIGatewayProxyEvent, 'requestContext'>): Principal | undefined {
  const claims = (event.requestContext?.authorizer as { claims?: Record<string, unknown> } | null | undefined)?.claims;
  const sub = claims?.sub;
  if (typeof sub !== 'string' || sub.length === 0) return undefined;
  const email = claims?.email;
  return { kind: 'owner', ownerId: sub, ...(typeof email === 'string' && email ? { email } : {}) };
}

/**
 * The control API behind API Gateway's Cognito authorizer, which also answers the preflights; the
 * answers carry CORS headers for `dashboardOrigin`. Logs carry the request and owner ids, never tokens.
 */
export function createControlApiHandler(services: ControlServices, options: { dashboardOrigin?: string } = {}) {
  const router = new ControlRouter(services, CONTROL_ROUTES, ownerFromClaims);
  const cors: Record<string, string> = options.dashboardOrigin
    ? { 'Access-Control-Allow-Origin': options.dashboardOrigin, Vary: 'Origin' }
    : {};
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>({ timeoutEarlyInMillis: TIMEOUT_EARLY_MS })
    .use(powertools())
    .handler(async (event, context) => {
      const owner = ownerFromClaims(event);
      logger.appendKeys({ ownerId: owner?.kind === 'owner' ? owner.ownerId : undefined });
      const answer = await router.answer(event, context);
      if (answer.statusCode >= 500) logger.warn('control API answered a server error', { status: answer.statusCode });
      return { ...answer, headers: { ...answer.headers, ...cors } };
    });
}
