/** Gateway responses of the Messages API as data (RFC 9457 bodies): the CDK construct and the local front answer alike. */
export interface GatewayResponseDefinition {
  /** API Gateway response type, e.g. UNAUTHORIZED. */
  readonly type: string;
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly problem: { readonly code: string; readonly title: string; readonly detail: string };
}

export const PROBLEM_TYPE_BASE = 'https://docs.platform.example.com/problems/';

export const problemHeaders = { 'Content-Type': 'application/problem+json' } as const;

/** Gateway responses answered alike by the Messages API and the dashboard's control API. */
export const SHARED_GATEWAY_RESPONSES = {
  requestTooLarge: {
    type: 'REQUEST_TOO_LARGE',
    statusCode: 413,
    headers: problemHeaders,
    problem: { code: 'payload_too_large', title: 'Payload Too Large', detail: 'The request body is too large.' },
  },
  integrationTimeout: {
    type: 'INTEGRATION_TIMEOUT',
    statusCode: 504,
    headers: problemHeaders,
    problem: { code: 'gateway_timeout', title: 'Gateway Timeout', detail: 'Please retry shortly.' },
  },
  default4xx: {
    type: 'DEFAULT_4XX',
    statusCode: 400,
    headers: problemHeaders,
    problem: { code: 'bad_request', title: 'Bad Request', detail: 'The request could not be handled.' },
  },
  default5xx: {
    type: 'DEFAULT_5XX',
    statusCode: 503,
    headers: { ...problemHeaders, 'Retry-After': '1' },
    problem: { code: 'service_unavailable', title: 'Service Unavailable', detail: 'Please retry shortly.' },
  },
} as const satisfies Record<string, GatewayResponseDefinition>;

/** API Gateway's refusal of a request its authorizer turned away, by either of its two types. */
const invalidApiKey = {
  statusCode: 401,
  headers: { ...problemHeaders, 'WWW-Authenticate': 'Bearer' },
  problem: {
    code: 'invalid_api_key',
    title: 'Unauthorized',
    detail: 'Send a valid API key as "Authorization: Bearer <key>".',
  },
} as const;

/** A 429 with Retry-After (for the Messages API, a usage plan: the backstop behind our exact limiter). */
export const rateLimited = (type: string, retryAfter: string, detail: string): GatewayResponseDefinition => ({
  type,
  statusCode: 429,
  headers: { ...problemHeaders, 'Retry-After': retryAfter },
  problem: { code: 'rate_limited', title: 'Too Many Requests', detail },
});

export const GATEWAY_RESPONSES: readonly GatewayResponseDefinition[] = [
  { type: 'UNAUTHORIZED', ...invalidApiKey },
  { type: 'ACCESS_DENIED', ...invalidApiKey },
  {
    // The internal usage-plan key is gone: its customer key was revoked (within the authorizer's
    // cache TTL). For the caller that is an invalid key.
    type: 'INVALID_API_KEY',
    ...invalidApiKey,
    problem: { ...invalidApiKey.problem, detail: 'The API key is invalid or has been revoked.' },
  },
  rateLimited('THROTTLED', '1', 'Request rate is far above your plan. Back off exponentially and retry.'),
  rateLimited('QUOTA_EXCEEDED', '3600', 'Daily request quota exhausted. Retry after the day resets (00:00 UTC).'),
  SHARED_GATEWAY_RESPONSES.requestTooLarge,
  {
    type: 'MISSING_AUTHENTICATION_TOKEN',
    statusCode: 404,
    headers: problemHeaders,
    problem: { code: 'not_found', title: 'Not Found', detail: 'No such resource.' },
  },
  // An authorizer that failed or is misconfigured: the same retryable 503 as any other 5XX.
  { ...SHARED_GATEWAY_RESPONSES.default5xx, type: 'AUTHORIZER_FAILURE' },
  { ...SHARED_GATEWAY_RESPONSES.default5xx, type: 'AUTHORIZER_CONFIGURATION_ERROR' },
  SHARED_GATEWAY_RESPONSES.integrationTimeout,
  SHARED_GATEWAY_RESPONSES.default4xx,
  SHARED_GATEWAY_RESPONSES.default5xx,
];

/** The problem body of a gateway response, with the request id filled in. */
export function gatewayProblemBody(def: GatewayResponseDefinition, requestId: string): string {
  return JSON.stringify({
    type: `${PROBLEM_TYPE_BASE}${def.problem.code}`,
    title: def.problem.title,
    status: def.statusCode,
    detail: def.problem.detail,
    code: def.problem.code,
    requestId,
  });
}

export function gatewayResponse(type: string): GatewayResponseDefinition {
  const def = GATEWAY_RESPONSES.find((r) => r.type === type);
  if (!def) throw new Error(`unknown gateway response type ${type}`);
  return def;
}
