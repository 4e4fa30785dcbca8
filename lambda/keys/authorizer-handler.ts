import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { logger } from '../shared/powertools.js';
import { type AuthorizeDeps, createAuthorizer } from './authorize.js';

export function createAuthorizerHandler(deps: AuthorizeDeps) {
  const authorize = createAuthorizer(deps);
  return middy<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .handler((event) => authorize(event));
}
