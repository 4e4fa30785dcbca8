import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { powertools, TIMEOUT_EARLY_MS } from '../shared/middleware.js';
import { type AuthorizeDeps, createAuthorizer } from './authorize.js';

export function createAuthorizerHandler(deps: AuthorizeDeps) {
  const authorize = createAuthorizer(deps);
  return middy<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult, Error, Context>({
    timeoutEarlyInMillis: TIMEOUT_EARLY_MS,
  })
    .use(powertools())
    .handler((event) => authorize(event));
}
