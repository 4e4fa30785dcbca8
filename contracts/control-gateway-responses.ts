import { type GatewayResponseDefinition, problemHeaders, rateLimited, SHARED_GATEWAY_RESPONSES } from './gateway-responses.js';

/**
 * Gateway responses of the control API (behind the dashboard's Cognito authorizer): RFC 9457
 * problem documents like the Messages API's, as plain data. The construct adds the CORS headers
 * of the dashboard's origin to each, so that the browser lets the dashboard read them (a 401 from
 * the authorizer must reach the app, which then signs the owner in again).
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
