/** The events and context the benchmarks call the Messages API handlers with. */
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent, SQSEvent } from 'aws-lambda';
import type { MessageEnvelope } from '../lambda/messages/message.js';
import { localLambdaContext } from '../local/loopback.js';
import { UNLIMITED } from './lib.js';

/** An API Gateway proxy event for POST /messages as the local gateway builds it, with an authorized key. */
export function sendEvent(i: number, keyId: string, accountId: string, idempotencyKey?: string): APIGatewayProxyEvent {
  const body = JSON.stringify({ message: `bench message ${i}` });
  return {
    resource: '/messages',
    path: '/messages',
    httpMethod: 'POST',
    headers: {
      'content-type': 'application/json',
      'content-length': String(body.length),
      host: 'localhost',
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      httpMethod: 'POST',
      path: '/messages',
      protocol: 'HTTP/1.1',
      requestId: `req-${i}`,
      requestTimeEpoch: Date.now(),
      resourceId: 'bench',
      resourcePath: '/messages',
      stage: 'v1',
      identity: { sourceIp: '127.0.0.1' },
      authorizer: {
        principal: 'key',
        keyId,
        accountId,
        plan: 'enterprise',
        ...UNLIMITED,
        banThreshold: 10,
        banDurationSeconds: 60,
        principalId: keyId,
      },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

/** The Lambda context of a benchmark's invocation: the local platform's, 10 s to run. */
export const lambdaContext = (requestId: string) => localLambdaContext('send', requestId, 10_000);

/** POST /messages/batch of 100 messages, each of the same text as sendEvent(i)'s. */
export function batchEvent(i: number, keyId: string, accountId: string): APIGatewayProxyEvent {
  const event = sendEvent(i, keyId, accountId);
  const { message } = JSON.parse(event.body ?? '{}') as { message: string };
  const body = JSON.stringify({ messages: Array.from({ length: 100 }, () => ({ message })) });
  Object.assign(event, { resource: '/messages/batch', path: '/messages/batch', body });
  event.headers['content-length'] = String(Buffer.byteLength(body));
  return event;
}

export const authorizerEvent = (secret: string, requestId: string) =>
  ({
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:us-east-1:000000000000:bench/v1/POST/messages',
    headers: { Authorization: `Bearer ${secret}` },
    requestContext: { requestId },
  }) as unknown as APIGatewayRequestAuthorizerEvent;

/** The worker's SQS event for these envelopes, each on its first receive. */
export const workerEvent = (envelopes: readonly MessageEnvelope[]) =>
  ({
    Records: envelopes.map((envelope) => ({
      messageId: `sqs-${envelope.id}`,
      receiptHandle: 'r',
      body: JSON.stringify(envelope),
      attributes: { ApproximateReceiveCount: '1' },
      messageAttributes: { messageId: { stringValue: envelope.id, dataType: 'String' } },
      eventSource: 'aws:sqs',
    })),
  }) as unknown as SQSEvent;
