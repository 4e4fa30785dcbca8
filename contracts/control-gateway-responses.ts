import { type GatewayResponseDefinition, problemHeaders, rateLimited, SHARED_GATEWAY_RESPONSES } from './gateway-responses.js';

/**
 * Gateway responses of the control API (Cognito authorizer). The construct adds the dashboard origin's
 * CORS headers to each: the app must read a 401 of the authorizer to sign the owner in again.
 */
export const CONTROL_GATEWAY_RESPONSES: readonly GatewayResponseDefinition[] = [
  {
    // The Cognito authorizer refused the request: no token, or an invalid or expired ID token.
    type: 'UNAUTHORIZED',
    statusCode: 401,
    headers: { ...problemHeaders, 'WWW-Authenticate': 'Bearer' },
    problem: {
      code: 'unauthorized',
      title: 'Unauthorized',
      detail: 'Sign in again: send a valid ID token of the dashboard\'s user pool as "Authorization: Bearer <token>".',
    },
  },
  {
    type: 'ACCESS_DENIED',
    statusCode: 403,
    headers: problemHeaders,
    problem: { code: 'forbidden', title: 'Forbidden', detail: 'The request is not allowed.' },
  },
  rateLimited('THROTTLED', '1', 'Too many requests. Retry in a moment.'),
  SHARED_GATEWAY_RESPONSES.requestTooLarge,
  SHARED_GATEWAY_RESPONSES.integrationTimeout,
  SHARED_GATEWAY_RESPONSES.default4xx,
  SHARED_GATEWAY_RESPONSES.default5xx,
];
