import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  MANAGEMENT_PLANE,
  DATA_PLANE,
  USAGE_PLAN_UPDATE_FLOOR_MS,
  usagePlanUpdateRetry,
} from '../../../lambda/shared/aws-clients.js';
import { beforeAnswer, withDeadline } from '../../../lambda/shared/deadline.js';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';

// A DynamoDB endpoint on loopback that answers from a script: the SDK's whole middleware stack
// (retries included) runs against it.
let server: Server;
let endpoint: string;
/** `hang`: the request is never answered (a stalled peer). */
let script: Array<{ status: number; body: object } | 'hang'> = [];
let requests = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      const next = script.shift() ?? { status: 200, body: {} };
      if (next === 'hang') return;
      res.writeHead(next.status, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(next.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

afterEach(() => {
  script = [];
  requests = 0;
  vi.useRealTimers();
});

const documents = () =>
  createDocumentClient({ endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
const put = (client: ReturnType<typeof documents>) =>
  client.send(new PutCommand({ TableName: 'T', Item: { id: 'a', gone: undefined }, ConditionExpression: 'attribute_not_exists(id)' }));
const error = (type: string, extra: object = {}) => ({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: type, ...extra });

describe('DATA_PLANE: the request path\'s SDK retries', () => {
  it('retries a 5xx and a throttle, and counts the attempts in $metadata', async () => {
    script = [
      { status: 500, body: error('InternalServerError') },
      { status: 400, body: error('ThrottlingException') },
    ];
    const client = documents();
    const output = await put(client);
    expect(requests).toBe(3);
    expect(output.$metadata.attempts).toBe(3);
    client.destroy();
  });

  it('gives up after 3 attempts with the service\'s error and its $metadata (answered as a dependency failure)', async () => {
    script = [500, 500, 500, 500].map((status) => ({ status, body: error('InternalServerError') }));
    const client = documents();
    await expect(put(client)).rejects.toMatchObject({ name: 'InternalServerError', $metadata: { attempts: 3 } });
    expect(requests).toBe(3);
    client.destroy();
  });

  it('never retries a refused condition; its Item comes back as native values', async () => {
    script = [{ status: 400, body: error('ConditionalCheckFailedException', { Item: { id: { S: 'a' }, n: { N: '3' } } }) }];
    const client = documents();
    await expect(put(client)).rejects.toMatchObject({ name: 'ConditionalCheckFailedException', Item: { id: 'a', n: 3 } });
    expect(requests).toBe(1);
    client.destroy();
  });

  it('is the standard mode with 3 attempts', () => {
    expect(DATA_PLANE).toEqual({ retryMode: 'standard', maxAttempts: 3 });
  });
});

describe('the request deadline (lambda/shared/deadline.ts)', () => {
  it('aborts an attempt in flight when the request\'s work deadline passes, and retries nothing after it', async () => {
    script = ['hang', 'hang', 'hang'];
    const client = documents();
    const started = Date.now();
    await expect(withDeadline(400, 200, () => put(client))).rejects.toMatchObject({ name: 'AbortError' });
    // The work's deadline is the answer's (400 ms) less the reserve (200 ms); 2 s is one attempt's own bound.
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(requests).toBe(1);
    client.destroy();
  });

  it('gives the undo the time left until the answer, past the work\'s deadline', async () => {
    script = ['hang'];
    const client = documents();
    await withDeadline(600, 400, async () => {
      await expect(put(client)).rejects.toMatchObject({ name: 'AbortError' });
      // The work's deadline has passed: a call now would be aborted at once; beforeAnswer has ~300 ms more.
      await expect(beforeAnswer(() => put(client))).resolves.toMatchObject({ $metadata: { httpStatusCode: 200 } });
    });
    expect(requests).toBe(2);
    client.destroy();
  });

  it('leaves calls outside a request alone', async () => {
    const client = documents();
    await expect(put(client)).resolves.toMatchObject({ $metadata: { attempts: 1 } });
    client.destroy();
  });
});

describe('MANAGEMENT_PLANE: the management APIs\' SDK retries', () => {
  it('configures adaptive mode (client-side rate limiting after a throttle) with 8 attempts', async () => {
    const client = new APIGatewayClient({ ...MANAGEMENT_PLANE, region: 'eu-west-1' });
    const strategy = await client.config.retryStrategy();
    expect((strategy as { mode?: string }).mode).toBe('adaptive');
    expect(await client.config.maxAttempts()).toBe(8);
    client.destroy();
  });
});

describe('usagePlanUpdateRetry: UpdateUsagePlan\'s 20 s floor', () => {
  const throttled = { errorType: 'THROTTLING' as const };

  it('waits the floor plus a jittered exponential step before each retry', async () => {
    vi.useFakeTimers();
    const strategy = usagePlanUpdateRetry(() => 0.5);
    let token = await strategy.acquireInitialRetryToken('apigateway');
    for (const step of [500, 1_000, 2_000]) {
      let retried = false;
      const next = strategy.refreshRetryTokenForRetry(token, throttled).then((t) => {
        retried = true;
        return t;
      });
      await vi.advanceTimersByTimeAsync(USAGE_PLAN_UPDATE_FLOOR_MS + step - 1);
      expect(retried).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(retried).toBe(true);
      token = await next;
    }
  });

  it('stops after 8 attempts in all, and does not retry what is not transient', async () => {
    vi.useFakeTimers();
    const strategy = usagePlanUpdateRetry(() => 0);
    let token = await strategy.acquireInitialRetryToken('apigateway');
    for (let retry = 1; retry <= 7; retry++) {
      const next = strategy.refreshRetryTokenForRetry(token, throttled);
      await vi.advanceTimersByTimeAsync(60_000);
      token = await next;
    }
    await expect(strategy.refreshRetryTokenForRetry(token, throttled)).rejects.toThrow();
    const fresh = await strategy.acquireInitialRetryToken('apigateway');
    await expect(strategy.refreshRetryTokenForRetry(fresh, { errorType: 'CLIENT_ERROR' })).rejects.toThrow();
  });
});
