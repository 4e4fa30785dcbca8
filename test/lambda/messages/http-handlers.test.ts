import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFallbackHandler, createSendMessageHandler } from '../../../lambda/messages/http-handlers.js';
import type { LimiterStore } from '../../../lambda/rate-limits/limiter-store.js';
import { MemoryLimiterStore } from '../../support/memory-limiter-store.js';
import { AccountLimits } from '../../../lambda/rate-limits/account-limits.js';
import { RateLimiter } from '../../../lambda/rate-limits/rate-limiter.js';
import { systemClock } from '../../../lambda/shared/clock.js';
import { logger, metrics } from '../../../lambda/shared/powertools.js';
import { loadConfig } from '../../../lib/config/index.js';
import { FakeIdempotencyStore, FakeMessageQueue, FakeMessageStore } from '../../support/message-fakes.js';

const config = loadConfig();

function event(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    resource: '/messages',
    path: '/messages',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: '{"message":"Hello"}',
    isBase64Encoded: false,
    requestContext: {
      path: '/messages',
      requestId: 'req-1',
      identity: { sourceIp: '203.0.113.7' },
      authorizer: {
        principal: 'key',
        keyId: 'key_1',
        accountId: 'acct_1',
        plan: 'free',
        perMinute: 60,
        perDay: 1000,
        banThreshold: 10,
        banDurationSeconds: 60,
      },
    } as unknown as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}

function context(remainingMs?: number): Context {
  return {
    awsRequestId: 'lambda-req-1',
    ...(remainingMs === undefined ? {} : { getRemainingTimeInMillis: () => remainingMs }),
  } as unknown as Context;
}

async function sendHandler(store: LimiterStore = new MemoryLimiterStore()) {
  if (store instanceof MemoryLimiterStore) {
    await new AccountLimits(store).provision('acct_1', { perMinute: 60, perDay: 1000 }, Date.now());
  }
  return createSendMessageHandler({
    limiter: new RateLimiter(store, systemClock),
    messages: new FakeMessageStore(),
    queue: new FakeMessageQueue(),
    idempotency: new FakeIdempotencyStore(),
    clock: systemClock,
    config: config.messages,
    anonymousLimits: config.anonymous,
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('API handler frame', () => {
  it('answers 202 JSON with X-Request-Id and the rate-limit headers', async () => {
    const result = await (await sendHandler())(event(), context(10_000));
    expect(result.statusCode).toBe(202);
    expect(result.headers).toMatchObject({
      'Content-Type': 'application/json',
      'X-Request-Id': 'req-1',
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '59',
    });
    expect(result.headers?.Location).toMatch(/^\/messages\/msg_/);
  });

  it('answers a problem with the collected headers and logs it with the key id, API Gateway\'s request id as correlation id', async () => {
    const correlationIds: unknown[] = [];
    const info = vi.spyOn(logger, 'info').mockImplementation(() => {
      correlationIds.push(logger.getCorrelationId());
    });
    const result = await (await sendHandler())(event({ body: '{"message":""}' }), context());
    expect(result.statusCode).toBe(400);
    expect(result.headers).toMatchObject({
      'Content-Type': 'application/problem+json',
      'X-Request-Id': 'req-1',
      'X-RateLimit-Limit': '60',
    });
    expect(JSON.parse(result.body)).toMatchObject({ status: 400, code: 'invalid_field', requestId: 'req-1' });
    expect(info).toHaveBeenCalledWith('request refused', { keyId: 'key_1', status: 400, code: 'invalid_field' });
    expect(correlationIds).toEqual(['req-1']);
    // Reset after the invocation: nothing of this request leaks into the next one's lines.
    expect(logger.getCorrelationId()).toBeUndefined();
  });

  it('answers 503 with Retry-After shortly before the function times out, and frees the slot', async () => {
    const hanging = new MemoryLimiterStore();
    await new AccountLimits(hanging).provision('acct_1', { perMinute: 60, perDay: 1000 }, Date.now());
    vi.spyOn(hanging, 'tryConsume').mockImplementation(() => new Promise(() => {}));
    vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const handler = await sendHandler(hanging);
    const started = Date.now();
    const result = await handler(event(), context(60));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(result.statusCode).toBe(503);
    expect(result.headers?.['Retry-After']).toBe('1');
    expect(JSON.parse(result.body).code).toBe('service_unavailable');

    // A later invocation is not cut short by the earlier deadline.
    vi.mocked(hanging.tryConsume).mockRestore();
    expect((await handler(event(), context(10_000))).statusCode).toBe(202);
  });

  it('publishes the invocation\'s metrics once at its end (logMetrics), with the cold-start metric asked for', async () => {
    const added = vi.spyOn(metrics, 'addMetric');
    const published = vi.spyOn(metrics, 'publishStoredMetrics').mockReturnThis();
    const coldStart = vi.spyOn(metrics, 'captureColdStartMetric').mockReturnValue(undefined);
    await (await sendHandler())(event(), { ...context(), functionName: 'send-message' } as Context);
    expect(added.mock.calls.map(([name]) => name)).toEqual(['LimiterLatency', 'MessageAccepted']);
    expect(published).toHaveBeenCalledTimes(1);
    expect(coldStart).toHaveBeenCalledWith('send-message');
  });

  it('sends a rejection reason as its own dimensioned metric', async () => {
    vi.spyOn(metrics, 'publishStoredMetrics').mockReturnThis();
    const single = { addDimension: vi.fn(), addMetric: vi.fn() };
    vi.spyOn(metrics, 'singleMetric').mockReturnValue(single as unknown as ReturnType<typeof metrics.singleMetric>);
    vi.spyOn(logger, 'info').mockImplementation(() => undefined);
    const limiter = new RateLimiter(new MemoryLimiterStore(), systemClock);
    const handler = createFallbackHandler({ limiter, anonymousLimits: config.anonymous });
    const anonymous = event({ requestContext: { requestId: 'req-2', identity: { sourceIp: '198.51.100.1' } } as never });
    expect((await handler(anonymous, context())).statusCode).toBe(401);
    expect(single.addDimension).toHaveBeenCalledWith('reason', 'unauthorized');
    expect(single.addMetric).toHaveBeenCalledWith('RequestRejected', 'Count', 1);
  });
});
