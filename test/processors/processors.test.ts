import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isPermanentError } from '../../lambda/messages/processor.js';
import { processMessage as defaultProcessor } from '../../processors/default.js';
import { processMessage as forward } from '../../processors/http-forwarder.js';

const message = {
  id: 'msg_01JD8X3Q5Z8M2N4P6R7S9T0V1W',
  accountId: 'acct_1',
  keyId: 'key_1',
  message: 'Hello, world',
  createdAt: '2026-11-21T10:15:30.123Z',
};

describe('processors/default.ts', () => {
  it('accepts every message, with no result', async () => {
    expect(await defaultProcessor(message, { attempt: 1 })).toBeUndefined();
  });
});

describe('processors/http-forwarder.ts', () => {
  let server: Server;
  let url: string;
  let answer: (req: IncomingMessage, res: ServerResponse) => void;
  const received: Array<{ headers: IncomingMessage['headers']; body: unknown }> = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        received.push({ headers: req.headers, body: JSON.parse(body) as unknown });
        answer(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  afterEach(() => {
    received.length = 0;
    delete process.env.FORWARD_URL;
    delete process.env.FORWARD_TIMEOUT_MS;
    delete process.env.FORWARD_AUTHORIZATION;
  });
  const status = (code: number) => (_req: IncomingMessage, res: ServerResponse) => res.writeHead(code).end('x');

  it('POSTs the message and its attempt as JSON, with the id as Idempotency-Key; a 2xx is done', async () => {
    process.env.FORWARD_URL = url;
    process.env.FORWARD_AUTHORIZATION = 'Bearer t0ken';
    answer = status(204);
    expect(await forward(message, { attempt: 2 })).toEqual({ status: 204 });
    expect(received).toHaveLength(1);
    expect(received[0]?.body).toEqual({ ...message, attempt: 2 });
    expect(received[0]?.headers).toMatchObject({
      'content-type': 'application/json',
      'idempotency-key': message.id,
      authorization: 'Bearer t0ken',
    });
  });

  it.each([400, 404, 422])('fails the message permanently on %i', async (code) => {
    process.env.FORWARD_URL = url;
    answer = status(code);
    const error = await Promise.resolve(forward(message, { attempt: 1 })).catch((e: unknown) => e);
    expect(isPermanentError(error)).toBe(true);
    expect((error as Error).message).toBe(`the forward URL answered ${code}`);
  });

  it.each([500, 503, 408, 429])('fails only the attempt (retried) on %i', async (code) => {
    process.env.FORWARD_URL = url;
    answer = status(code);
    const error = await Promise.resolve(forward(message, { attempt: 1 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(isPermanentError(error)).toBe(false);
  });

  it('fails the attempt when the URL does not answer within the timeout', async () => {
    process.env.FORWARD_URL = url;
    process.env.FORWARD_TIMEOUT_MS = '100';
    answer = (_req, res) => setTimeout(() => res.writeHead(200).end(), 1_000);
    const error = await Promise.resolve(forward(message, { attempt: 1 })).catch((e: unknown) => e);
    expect((error as Error).message).toBe('no answer from the forward URL within 100 ms');
    expect(isPermanentError(error)).toBe(false);
  });

  it('fails the attempt without FORWARD_URL, saying so', async () => {
    await expect(Promise.resolve(forward(message, { attempt: 1 }))).rejects.toThrow('FORWARD_URL is not set');
  });
});
