import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type AwsCallRecord,
  AwsClient,
  type AwsClientConfig,
  AwsServiceError,
  defaultEndpoint,
  TimeoutError,
} from '../../../../lambda/shared/aws/aws-client.js';
import {
  CredentialsError,
  environmentCredentials,
  memoizeCredentials,
} from '../../../../lambda/shared/aws/credentials.js';
import { isConditionFailure } from '../../../../lambda/shared/dynamodb.js';
import { isDependencyFailure } from '../../../../lambda/shared/http.js';
import { NodeSha256 } from '../../../support/node-sha256.js';

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly socketPort: number;
}
type Answer = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let endpoint: string;
let answers: Answer[] = [];
let received: Received[] = [];
let connections = 0;

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `req-${status}`, ...headers });
  res.end(JSON.stringify(body));
};
const ddbError = (status: number, type: string, message = `${type} happened`) =>
  json(status, { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message });
const reset: Answer = (req) => req.socket.destroy();
const silent: Answer = () => undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        socketPort: req.socket.remotePort ?? 0,
      });
      const answer = answers.shift() ?? json(200, {});
      answer(req, res);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  answers = [];
  received = [];
  connections = 0;
  vi.unstubAllEnvs();
});

const CREDENTIALS = { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret', sessionToken: 'session' };
const clients: AwsClient[] = [];
function client(config: AwsClientConfig = {}): AwsClient {
  const c = new AwsClient('dynamodb', { region: 'eu-west-1', endpoint, credentials: CREDENTIALS, retryBaseMs: 1, ...config });
  clients.push(c);
  return c;
}
afterAll(() => clients.forEach((c) => c.destroy()));

const getItem = (c: AwsClient) =>
  c.request({
    operation: 'GetItem',
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem' },
    body: '{"TableName":"T"}',
  });

async function failure(call: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await call;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected the call to fail');
}

describe('retries', () => {
  it('retries a 500 and answers with the attempts it took', async () => {
    answers = [ddbError(500, 'InternalServerError'), json(200, { Item: {} })];
    const calls: AwsCallRecord[] = [];
    const response = await getItem(client({ onCall: (c) => calls.push(c) }));
    expect(response.statusCode).toBe(200);
    expect(response.metadata).toMatchObject({ httpStatusCode: 200, requestId: 'req-200', attempts: 2 });
    expect(received).toHaveLength(2);
    expect(calls).toEqual([
      expect.objectContaining({ service: 'dynamodb', operation: 'GetItem', attempts: 2, ok: true }),
    ]);
    expect((calls[0] as AwsCallRecord).endMs).toBeGreaterThanOrEqual((calls[0] as AwsCallRecord).startMs);
  });

  it.each([
    'ThrottlingException',
    'ProvisionedThroughputExceededException',
    'RequestLimitExceeded',
    'TooManyRequestsException',
    'RequestThrottled',
    'RequestThrottledException',
  ])('retries %s (400) up to maxAttempts, then throws it with its metadata', async (type) => {
    answers = [ddbError(400, type), ddbError(400, type), ddbError(400, type), json(200, {})];
    const calls: AwsCallRecord[] = [];
    const error = await failure(getItem(client({ onCall: (c) => calls.push(c) })));
    expect(error).toBeInstanceOf(AwsServiceError);
    expect(error).toMatchObject({
      name: type,
      message: `${type} happened`,
      $fault: 'client',
      $retryable: true,
      $metadata: { httpStatusCode: 400, requestId: 'req-400', attempts: 3 },
    });
    expect(received).toHaveLength(3);
    expect(calls).toEqual([expect.objectContaining({ attempts: 3, ok: false })]);
    expect(isDependencyFailure(error)).toBe(true);
  });

  it('retries 429 and 503 without an error type in the body', async () => {
    answers = [
      (_req, res) => res.writeHead(429).end(),
      (_req, res) => res.writeHead(503, { 'content-type': 'text/html' }).end('<html>unavailable</html>'),
      json(200, {}),
    ];
    expect((await getItem(client())).metadata.attempts).toBe(3);
  });

  it('does not retry a 400 ValidationException, nor DynamoDB\'s LimitExceededException', async () => {
    answers = [ddbError(400, 'ValidationException', 'One or more parameter values were invalid')];
    const error = await failure(getItem(client()));
    expect(error).toMatchObject({
      name: 'ValidationException',
      message: 'One or more parameter values were invalid',
      $fault: 'client',
      $retryable: false,
      $metadata: { httpStatusCode: 400, requestId: 'req-400', attempts: 1 },
    });
    expect(received).toHaveLength(1);

    answers = [ddbError(400, 'LimitExceededException')];
    expect(await failure(getItem(client()))).toMatchObject({ name: 'LimitExceededException', $metadata: { attempts: 1 } });
  });

  it('names a failed condition as the SDK does, so isConditionFailure sees it', async () => {
    answers = [ddbError(400, 'ConditionalCheckFailedException', 'The conditional request failed')];
    const error = await failure(getItem(client()));
    expect(error.name).toBe('ConditionalCheckFailedException');
    expect(isConditionFailure(error)).toBe(true);
    expect(received).toHaveLength(1);
  });

  it('retries a reset connection, and after the last attempt rethrows the network error with its code', async () => {
    answers = [reset, json(200, {})];
    expect((await getItem(client())).metadata.attempts).toBe(2);

    answers = [reset, reset, reset];
    const error = await failure(getItem(client()));
    expect(error.code).toBe('ECONNRESET');
    expect(error.$metadata).toMatchObject({ attempts: 3 });
    expect(isDependencyFailure(error)).toBe(true);
  });

  it('rethrows ECONNREFUSED after its attempts when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const calls: AwsCallRecord[] = [];
    const error = await failure(getItem(client({ endpoint: `http://127.0.0.1:${port}`, onCall: (c) => calls.push(c) })));
    expect(error.code).toBe('ECONNREFUSED');
    expect(calls[0]?.attempts).toBe(3);
    expect(isDependencyFailure(error)).toBe(true);
  });

  it('times out an attempt that gets no answer, as a TimeoutError, and retries it', async () => {
    answers = [silent, json(200, {})];
    expect((await getItem(client({ requestTimeoutMs: 100 }))).metadata.attempts).toBe(2);

    answers = [silent, silent];
    const started = performance.now();
    const error = await failure(getItem(client({ requestTimeoutMs: 100, maxAttempts: 2 })));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.name).toBe('TimeoutError');
    expect(error.$metadata).toMatchObject({ attempts: 2 });
    expect(isDependencyFailure(error)).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('errors', () => {
  it('takes SQS\'s type from __type, else its legacy code from x-amzn-query-error', async () => {
    answers = [
      json(400, { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'The specified queue does not exist.' }, {
        'x-amzn-query-error': 'AWS.SimpleQueueService.NonExistentQueue;Sender',
      }),
      json(400, {}, { 'x-amzn-query-error': 'AWS.SimpleQueueService.NonExistentQueue;Sender' }),
    ];
    const sqs = client();
    expect(await failure(getItem(sqs))).toMatchObject({ name: 'QueueDoesNotExist', message: 'The specified queue does not exist.' });
    expect(await failure(getItem(sqs))).toMatchObject({ name: 'NonExistentQueue', $fault: 'client' });
  });

  it('takes a REST-JSON type from x-amzn-errortype', async () => {
    answers = [json(404, { message: 'Invalid API Key identifier specified' }, { 'x-amzn-errortype': 'NotFoundException:http://internal.amazon.com/' })];
    expect(await failure(getItem(client()))).toMatchObject({
      name: 'NotFoundException',
      message: 'Invalid API Key identifier specified',
      $metadata: { httpStatusCode: 404, attempts: 1 },
    });
  });
});

describe('requests', () => {
  it('signs every attempt (SigV4 the SDK verifies) with the session token, host and date', async () => {
    answers = [ddbError(500, 'InternalServerError'), json(200, {})];
    await getItem(client());
    expect(received).toHaveLength(2);
    for (const r of received) {
      expect(r.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-date;x-amz-security-token;x-amz-target, Signature=[0-9a-f]{64}$/,
      );
      expect(r.headers['x-amz-security-token']).toBe('session');
      expect(r.headers.host).toBe(new URL(endpoint).host);
      expect(r.body).toBe('{"TableName":"T"}');
      // Verified independently: the SDK's signer over what the server received gives the same signature.
      const date = r.headers['x-amz-date'] as string;
      const signedNames = /SignedHeaders=([^,]+)/.exec(r.headers.authorization as string)?.[1]?.split(';') ?? [];
      const signer = new SignatureV4({ credentials: CREDENTIALS, region: 'eu-west-1', service: 'dynamodb', sha256: NodeSha256, applyChecksum: false });
      const resigned = await signer.sign(
        {
          method: r.method,
          protocol: 'http:',
          hostname: '127.0.0.1',
          path: r.url,
          query: {},
          headers: Object.fromEntries(signedNames.filter((n) => n !== 'x-amz-date' && n !== 'x-amz-security-token').map((n) => [n, r.headers[n] as string])),
          body: r.body,
        },
        { signingDate: new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`) },
      );
      expect(resigned.headers.authorization).toBe(r.headers.authorization);
    }
  });

  it('sends a query string and an encoded path as given, under the endpoint\'s path', async () => {
    const c = client({ endpoint: `${endpoint}/base/` });
    await c.request({ operation: 'GetApiKey', method: 'GET', path: '/apikeys/a%2Fb', query: { includeValue: 'true', x: 'a b' } });
    expect(received[0]).toMatchObject({ method: 'GET', url: '/base/apikeys/a%2Fb?includeValue=true&x=a%20b' });
  });

  it('reuses one keep-alive connection for sequential calls', async () => {
    const c = client();
    for (let i = 0; i < 5; i++) await getItem(c);
    expect(received).toHaveLength(5);
    expect(new Set(received.map((r) => r.socketPort)).size).toBe(1);
    expect(connections).toBe(1);
    c.destroy();
    await getItem(c);
    expect(connections).toBe(2);
  });
});

describe('configuration', () => {
  it('needs a region: its own, else AWS_REGION', () => {
    vi.stubEnv('AWS_REGION', '');
    expect(() => new AwsClient('dynamodb', { credentials: CREDENTIALS })).toThrow('no AWS region');
    vi.stubEnv('AWS_REGION', 'eu-central-1');
    expect(new AwsClient('dynamodb', { credentials: CREDENTIALS }).region).toBe('eu-central-1');
  });

  it('defaults to the regional endpoint, amazonaws.com.cn in China, or the one the environment names', () => {
    vi.stubEnv('AWS_ENDPOINT_URL', '');
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', '');
    expect(defaultEndpoint('sqs', 'eu-west-1')).toBe('https://sqs.eu-west-1.amazonaws.com');
    expect(new AwsClient('dynamodb', { region: 'cn-north-1' }).endpoint.href).toBe('https://dynamodb.cn-north-1.amazonaws.com.cn/');
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', 'http://127.0.0.1:8000');
    expect(new AwsClient('dynamodb', { region: 'eu-west-1' }).endpoint.href).toBe('http://127.0.0.1:8000/');
  });

  it('reads Lambda\'s credentials from the environment; without them a call fails as a configuration error', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDENV');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'env-secret');
    vi.stubEnv('AWS_SESSION_TOKEN', 'env-token');
    await expect(environmentCredentials()()).resolves.toEqual({
      accessKeyId: 'AKIDENV',
      secretAccessKey: 'env-secret',
      sessionToken: 'env-token',
    });
    await getItem(client({ credentials: undefined }));
    expect(received[0]?.headers.authorization).toContain('Credential=AKIDENV/');

    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    const error = await failure(getItem(client({ credentials: undefined })));
    expect(error).toBeInstanceOf(CredentialsError);
    // Not a dependency failure: a deployment without credentials is a bug (500), not a retryable 503.
    expect(isDependencyFailure(error)).toBe(false);
  });

  it('memoizes credentials until 5 minutes before they expire, sharing one fetch', async () => {
    let now = Date.UTC(2026, 10, 21, 10, 0, 0);
    let fetches = 0;
    const provider = memoizeCredentials(async () => {
      fetches++;
      return { accessKeyId: `k${fetches}`, secretAccessKey: 's', expiration: new Date(now + 15 * 60_000) };
    }, () => now);
    const [a, b] = await Promise.all([provider(), provider()]);
    expect(a.accessKeyId).toBe('k1');
    expect(b.accessKeyId).toBe('k1');
    now += 9 * 60_000;
    expect((await provider()).accessKeyId).toBe('k1');
    now += 60_001;
    expect((await provider()).accessKeyId).toBe('k2');
    expect(fetches).toBe(2);
  });

  it('does not cache a failed credentials fetch', async () => {
    let calls = 0;
    const provider = memoizeCredentials(async () => {
      calls++;
      if (calls === 1) throw new Error('sso expired');
      return { accessKeyId: 'k', secretAccessKey: 's' };
    });
    await expect(provider()).rejects.toThrow('sso expired');
    await expect(provider()).resolves.toMatchObject({ accessKeyId: 'k' });
  });
});
