import { GetQueueAttributesCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { APIGatewayAuthorizerResult, APIGatewayProxyResult, SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../lambda/keys/api-key-format.js';
import type { LimitsConfig } from '../../lambda/keys/authorize.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { assertResponseMatchesSpec } from '../support/openapi.js';
import { type Answer, answerOf, authorizerEvent, type HttpRequest, proxyEvent, sqsEvent, sqsRecord } from './support/events.js';
import { LOCAL_ACCOUNT, LOCAL_IDS } from './support/local-resources.js';
import { BundleStage } from './support/stage.js';

// The Messages API's bundles, chained as API Gateway and SQS chain them on AWS: the authorizer's
// answer becomes the proxy event's context, the send bundle's message on fauxqs becomes the worker
// bundle's SQS event. Same outcomes as test/integration/messages-api.test.ts and queue.test.ts.
let stage: BundleStage;
let key: string;
let keyRecord: { keyId: string; gatewayKeyValue?: string };
let limits: LimitsConfig;
let pooledUsageKeys: Record<string, string>;

beforeAll(async () => {
  stage = await BundleStage.start();
  key = stage.platform.demoKeys.pro;
  const found = await stage.documents.send(
    new GetCommand({ TableName: stage.platform.tables.apiKeys, Key: { keyHash: hashApiKey(key) } }),
  );
  keyRecord = found.Item as typeof keyRecord;
  // What the stack gave the authorizer, read back from the template (not from the local config).
  const env = stage.declaredEnv('authorizer');
  limits = JSON.parse(env.LIMITS_CONFIG as string) as LimitsConfig;
  pooledUsageKeys = JSON.parse(env.POOLED_USAGE_KEYS as string) as Record<string, string>;
});
afterAll(() => stage?.stop());

/** The authorizer bundle's answer for a request, then the route's bundle with that context: API Gateway's order. */
async function call(route: 'sendMessage' | 'getMessage' | 'fallback', request: HttpRequest): Promise<Answer> {
  const authorization = await stage.invoke<APIGatewayAuthorizerResult>('authorizer', authorizerEvent(request));
  const result = await stage.invoke<APIGatewayProxyResult>(
    route,
    proxyEvent(request, { principalId: authorization.principalId, context: authorization.context ?? {} }),
  );
  const answer = answerOf(result);
  await stage.expectNoServerError(route, answer.status, answer.text);
  const { status, headers, body } = answer;
  assertResponseMatchesSpec({ method: request.method, path: request.path, status, headers, body });
  return answer;
}

const withKey = (headers: Record<string, string> = {}) => ({ Authorization: `Bearer ${key}`, ...headers });
const sendRequest = (body: string, headers: Record<string, string> = withKey({ 'Content-Type': 'application/json' })) =>
  ({ method: 'POST', resource: '/messages', path: '/messages', headers, body });
const readRequest = (id: string) =>
  ({ method: 'GET', resource: '/messages/{id}', path: `/messages/${id}`, headers: withKey(), pathParameters: { id } });

async function storedMessage(id: string): Promise<Record<string, unknown> | undefined> {
  const out = await stage.documents.send(
    new GetCommand({ TableName: stage.platform.tables.messages, Key: { id }, ConsistentRead: true }),
  );
  return out.Item;
}

describe('authorizer bundle (REQUEST authorizer)', () => {
  it('allows a valid key with its caller as context and its usage identifier', async () => {
    const event = authorizerEvent({ method: 'POST', resource: '/messages', path: '/messages', headers: withKey() });
    const result = await stage.invoke<APIGatewayAuthorizerResult>('authorizer', event);
    const pro = limits.plans.pro;
    expect(result).toEqual({
      principalId: keyRecord.keyId,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `arn:aws:execute-api:eu-west-1:${LOCAL_ACCOUNT}:${LOCAL_IDS.restApiId}/v1/*` },
        ],
      },
      context: {
        principal: 'key',
        keyId: keyRecord.keyId,
        accountId: 'acct_demo_pro',
        plan: 'pro',
        perMinute: pro.limits.perMinute,
        perDay: pro.limits.perDay,
        banThreshold: pro.ban.threshold,
        banDurationSeconds: pro.ban.durationSeconds,
      },
      usageIdentifierKey: keyRecord.gatewayKeyValue ?? pooledUsageKeys.pro,
    });
  });

  it('lets a request without a key through as anonymous, metered on the stack\'s pooled anonymous key', async () => {
    const result = await stage.invoke<APIGatewayAuthorizerResult>(
      'authorizer',
      authorizerEvent({ method: 'POST', resource: '/messages', path: '/messages' }),
    );
    expect(result.principalId).toBe('anonymous');
    expect(result.context).toEqual({ principal: 'anonymous', reason: 'missing' });
    expect(result.usageIdentifierKey).toBe(pooledUsageKeys.anonymous);
  });
});

describe('send, get, fallback and worker bundles', () => {
  let id: string;
  let queued: Message;

  it('send: a valid message is 202 with the queued record, written to dynalite and put on fauxqs', async () => {
    const answer = await call('sendMessage', sendRequest(JSON.stringify({ message: 'Hello from the bundle' })));
    expect(answer.status).toBe(202);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/),
      message: 'Hello from the bundle',
      status: 'queued',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    id = answer.body.id as string;
    // The stage is part of the path the client called (requestContext.path).
    expect(answer.headers.get('location')).toBe(`/v1/messages/${id}`);
    expect(answer.headers.get('x-ratelimit-limit')).toBe(String(limits.plans.pro.limits.perMinute));

    expect(await storedMessage(id)).toMatchObject({
      id, accountId: 'acct_demo_pro', message: 'Hello from the bundle', status: 'queued', createdAt: answer.body.createdAt,
    });
    const received = await stage.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: stage.platform.queues.queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );
    expect(received.Messages).toHaveLength(1);
    queued = received.Messages?.[0] as Message;
    expect(JSON.parse(queued.Body ?? '')).toEqual({ v: 1, id, accountId: 'acct_demo_pro', createdAt: answer.body.createdAt });
    expect(queued.MessageAttributes?.messageId).toMatchObject({ DataType: 'String', StringValue: id });
  });

  it('send: a body that is not JSON is a problem+json 400, and nothing is queued', async () => {
    const answer = await call('sendMessage', sendRequest('{"message": "unterminated'));
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(answer.body).toMatchObject({ status: 400, code: 'invalid_json', title: 'Bad Request' });
    const received = await stage.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: stage.platform.queues.queueUrl, WaitTimeSeconds: 0 }),
    );
    expect(received.Messages ?? []).toEqual([]);
  });

  it('send: without a key it is a problem+json 401 (the authorizer\'s anonymous context, as API Gateway passes it)', async () => {
    const answer = await call('sendMessage', sendRequest('{"message":"hi"}', { 'Content-Type': 'application/json' }));
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    expect(answer.body).toMatchObject({ status: 401, code: 'invalid_api_key' });
    // The anonymous budget's headers: the caller's context reached the handler.
    expect(answer.headers.get('x-ratelimit-limit')).toBe(String(limits.anonymous.perMinute));
  });

  it('get: reads the queued message back', async () => {
    const answer = await call('getMessage', readRequest(id));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id, message: 'Hello from the bundle', status: 'queued' });
  });

  it('get: the message log (GET /messages, same read function) lists it first, with one Query on the account index', async () => {
    const answer = await call('getMessage', { method: 'GET', resource: '/messages', path: '/messages', headers: withKey() });
    expect(answer.status).toBe(200);
    const data = answer.body.data as Array<{ id: string; attempts: number }>;
    expect(data[0]).toMatchObject({ id, status: 'queued', attempts: 0 });
    expect(answer.body.nextCursor).toBeNull();
  });

  it('fallback: an unknown path is 404 and a known path with another method 405 with Allow', async () => {
    const notFound = await call('fallback', {
      method: 'GET', resource: '/{proxy+}', path: '/nothing-here', headers: withKey(), pathParameters: { proxy: 'nothing-here' },
    });
    expect(notFound.status).toBe(404);
    expect(notFound.body).toMatchObject({ status: 404, code: 'not_found' });
    const wrongMethod = await call('fallback', {
      method: 'DELETE', resource: '/{proxy+}', path: '/messages', headers: withKey(), pathParameters: { proxy: 'messages' },
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
  });

  it('worker: the message received from fauxqs, as an SQS event, becomes processed', async () => {
    const queueArn = (
      await stage.sqs.send(new GetQueueAttributesCommand({ QueueUrl: stage.platform.queues.queueUrl, AttributeNames: ['QueueArn'] }))
    ).Attributes?.QueueArn as string;
    const result = await stage.invoke<SQSBatchResponse>('worker', sqsEvent(sqsRecord(queued, queueArn, 'eu-west-1')));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(await storedMessage(id)).toMatchObject({ id, status: 'processed', processedAt: expect.any(String) });
    const answer = await call('getMessage', readRequest(id));
    expect(answer.body).toMatchObject({ id, status: 'processed' });
  });

  it('worker: a record that is not an envelope is reported as a batch item failure, not a crash', async () => {
    const poison = { MessageId: '7b1f7a1e-0000-4000-8000-000000000001', ReceiptHandle: 'rh', Body: 'not json', Attributes: {} };
    const result = await stage.invoke<SQSBatchResponse>('worker', sqsEvent(sqsRecord(poison, 'arn:aws:sqs:eu-west-1:0:messages', 'eu-west-1')));
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: poison.MessageId }] });
  });
});

describe('send bundle, POST /messages/batch (the same function, told apart by resource)', () => {
  it('queues every message of a batch: 202 in request order, each record written to dynalite', async () => {
    const request = {
      ...sendRequest(JSON.stringify({ messages: [{ message: 'batch one' }, { message: 'batch two' }] })),
      resource: '/messages/batch',
      path: '/messages/batch',
    };
    const answer = await call('sendMessage', request);
    expect(answer.status).toBe(202);
    const data = answer.body.data as Array<{ id: string; message: string; status: string }>;
    expect(data.map((m) => [m.message, m.status])).toEqual([['batch one', 'queued'], ['batch two', 'queued']]);
    for (const m of data) expect(await storedMessage(m.id)).toMatchObject({ id: m.id, message: m.message, status: 'queued' });
  });
});
