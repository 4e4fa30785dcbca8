import { randomUUID } from 'node:crypto';
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import type { Message } from '@aws-sdk/client-sqs';
import { sqsRecordOf } from '../../../local/queue-poller.js';
import { LOCAL_ACCOUNT, LOCAL_IDS } from './local-resources.js';

// Events shaped as API Gateway (REST API, Lambda proxy integration and REQUEST authorizer) and the
// SQS event source mapping deliver them, after the samples in the AWS Lambda developer guide.

const SOURCE_IP = '203.0.113.7';
const API_ID = LOCAL_IDS.restApiId;
const STAGE = LOCAL_IDS.stageName;

export interface HttpRequest {
  readonly method: string;
  /** The API resource, e.g. `/messages/{id}` or `/{proxy+}`. */
  readonly resource: string;
  /** The path below the stage, e.g. `/messages/msg_...`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly pathParameters?: Readonly<Record<string, string>>;
}

function requestContext(request: HttpRequest, requestId: string, authorizer: Record<string, unknown> | null) {
  return {
    accountId: LOCAL_ACCOUNT,
    apiId: API_ID,
    authorizer,
    domainName: `${API_ID}.execute-api.eu-west-1.amazonaws.com`,
    domainPrefix: API_ID,
    extendedRequestId: requestId.slice(0, 16),
    httpMethod: request.method,
    // With the stage, as the client called it (event.path is without).
    path: `/${STAGE}${request.path}`,
    protocol: 'HTTP/1.1',
    requestId,
    requestTime: '21/Nov/2026:10:00:00 +0000',
    requestTimeEpoch: Date.now(),
    resourceId: 'abc123',
    resourcePath: request.resource,
    stage: STAGE,
    identity: {
      accessKey: null,
      accountId: null,
      apiKey: null,
      apiKeyId: null,
      caller: null,
      clientCert: null,
      cognitoAuthenticationProvider: null,
      cognitoAuthenticationType: null,
      cognitoIdentityId: null,
      cognitoIdentityPoolId: null,
      principalOrgId: null,
      sourceIp: SOURCE_IP,
      user: null,
      userAgent: 'bundle-stage/1',
      userArn: null,
    },
  };
}

const withHost = (headers: Readonly<Record<string, string>> = {}) => ({
  Host: `${API_ID}.execute-api.eu-west-1.amazonaws.com`,
  'User-Agent': 'bundle-stage/1',
  'X-Forwarded-For': SOURCE_IP,
  'X-Forwarded-Proto': 'https',
  ...headers,
});

/** The REQUEST authorizer's event for a request (identity source: the Authorization header). */
export function authorizerEvent(request: HttpRequest): APIGatewayRequestAuthorizerEvent {
  const headers = withHost(request.headers);
  return {
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:eu-west-1:${LOCAL_ACCOUNT}:${API_ID}/${STAGE}/${request.method}${request.path}`,
    resource: request.resource,
    path: request.path,
    httpMethod: request.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: request.pathParameters ? { ...request.pathParameters } : null,
    stageVariables: null,
    requestContext: requestContext(request, randomUUID(), null),
  } as unknown as APIGatewayRequestAuthorizerEvent;
}

/**
 * The proxy integration's event. `authorizer` is the authorizer's context: API Gateway passes every
 * value on as a string, with the principalId (and integrationLatency) beside them.
 */
export type ProxyAuthorizer =
  | { readonly principalId: string; readonly context?: Readonly<Record<string, unknown>> } |
  { readonly claims: Record<string, string> };

export function proxyEvent(request: HttpRequest, authorizer: ProxyAuthorizer): APIGatewayProxyEvent {
  const headers = withHost(request.headers);
  const context =
    'claims' in authorizer
      ? { claims: authorizer.claims }
      : {
          ...Object.fromEntries(Object.entries(authorizer.context ?? {}).map(([k, v]) => [k, String(v)])),
          principalId: authorizer.principalId,
          integrationLatency: 12,
        };
  return {
    resource: request.resource,
    path: request.path,
    httpMethod: request.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: request.pathParameters ? { ...request.pathParameters } : null,
    stageVariables: null,
    requestContext: requestContext(request, randomUUID(), context),
    body: request.body ?? null,
    isBase64Encoded: false,
  } as APIGatewayProxyEvent;
}

/** The event source mapping's record for a message received from the queue, as the local poller builds it. */
export function sqsRecord(message: Message, queueArn: string, region: string): SQSRecord {
  return sqsRecordOf(message, { queueArn, region, senderId: 'AROAEXAMPLE' });
}

export const sqsEvent = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

/** A proxy integration's result as the client sees it (API Gateway copies status, headers and body). */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed when the Content-Type is JSON (problem+json included). */
  readonly body: Record<string, unknown>;
  readonly text: string;
}

export function answerOf(result: APIGatewayProxyResult): Answer {
  const headers = new Headers();
  for (const [k, v] of Object.entries(result.headers ?? {})) headers.set(k, String(v));
  for (const [k, vs] of Object.entries(result.multiValueHeaders ?? {})) {
    for (const v of vs) headers.append(k, String(v));
  }
  const text = result.isBase64Encoded ? Buffer.from(result.body, 'base64').toString('utf8') : result.body;
  const json = /[/+]json\b/i.test(headers.get('content-type') ?? '');
  const body = json && text ? (JSON.parse(text) as Record<string, unknown>) : {};
  return { status: result.statusCode, headers, body, text };
}
