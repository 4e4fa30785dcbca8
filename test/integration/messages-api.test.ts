import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, rateHeaders, send, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Interface document: "Send a message", "Authentication", "Errors"; docs/api-clients.md, "Calling the Messages API".
let platform: TestPlatform;
let key: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  key = platform.demoKeys.business;
});
afterAll(() => platform?.stop());

const expectRateLimitHeaders = (headers: Headers) => {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(headers.get(name), name).toMatch(/^\d+$/);
  }
  expect(headers.get('ratelimit-policy')).toMatch(/^"minute";q=\d+;w=60, "day";q=\d+;w=86400$/);
  expect(headers.get('ratelimit')).toMatch(/^"(minute|day)";r=\d+;t=\d+$/);
  expect(headers.get('x-request-id')).toBeTruthy();
};

describe('POST /messages success', () => {
  it('answers 202 with the queued record, a Location and rate-limit headers', async () => {
    const answer = await send(platform, key, 'Hello, world');
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      id: expect.stringMatching(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/),
      message: 'Hello, world',
      status: 'queued',
      createdAt: new Date(platform.clock.now()).toISOString(),
    });
    expect(answer.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(answer.headers.get('location')).toBe(`/messages/${answer.body.id}`);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expectRateLimitHeaders(answer.headers);
  });

  it('accepts Content-Type with a charset parameter and any case', async () => {
    const answer = await send(platform, key, 'x', { contentType: 'Application/JSON; charset=utf-8' });
    expect(answer.status).toBe(202);
  });

  it('echoes unicode text exactly', async () => {
    const text = 'Grüße 👋 — "quoted" \\ back';
    expect((await send(platform, key, text)).body.message).toBe(text);
  });
});

describe('400 Bad Request, one test per cause (with rate-limit headers)', () => {
  const cases: Array<[string, Parameters<typeof call>[2], string]> = [
    ['body is not valid JSON', { body: '{"message": "unterminated' }, 'invalid_json'],
    ['body is empty', { body: '' }, 'invalid_json'],
    ['body is a JSON array, not an object', { body: '["Hello"]' }, 'invalid_json'],
    ['message is missing', { body: {} }, 'missing_field'],
    ['message is not a string', { body: { message: 42 } }, 'invalid_field'],
    ['message is null', { body: { message: null } }, 'invalid_field'],
    ['message is empty', { body: { message: '' } }, 'invalid_field'],
    ['an unknown field is sent', { body: { message: 'hi', priority: 'high' } }, 'unknown_field'],
    [
      'Content-Type is missing',
      { body: new TextEncoder().encode('{"message":"hi"}'), contentType: null },
      'unsupported_media_type',
    ],
    ['Content-Type is text/plain', { body: '{"message":"hi"}', contentType: 'text/plain' }, 'unsupported_media_type'],
    [
      'Content-Type is application/jsonp',
      { body: '{"message":"hi"}', contentType: 'application/jsonp' },
      'unsupported_media_type',
    ],
    [
      'the body is not UTF-8',
      { body: Uint8Array.from([0x7b, 0x22, 0x6d, 0xff, 0xfe, 0x22, 0x7d]) },
      'invalid_encoding',
    ],
    [
      'Idempotency-Key is too long',
      { body: { message: 'hi' }, headers: { 'Idempotency-Key': 'k'.repeat(256) } },
      'invalid_idempotency_key',
    ],
  ];
  it.each(cases)('%s', async (_name, options, code) => {
    const before = rateHeaders((await call(platform, '/messages/msg_00000000000000000000000000', { key })).headers);
    const answer = await call(platform, '/messages', { key, method: 'POST', ...options });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(answer.body).toMatchObject({ status: 400, code, title: 'Bad Request', type: expect.stringContaining(code) });
    expect(typeof answer.body.detail).toBe('string');
    expectRateLimitHeaders(answer.headers);
    // Only accepted requests consume budget.
    expect(rateHeaders(answer.headers).remaining).toBe(before.remaining);
  });

  it('names every unknown field', async () => {
    const answer = await send(platform, key, 'hi', { body: { message: 'hi', to: 'x', priority: 1 } });
    expect(answer.body.errors).toEqual([
      { field: 'to', message: expect.any(String) },
      { field: 'priority', message: expect.any(String) },
    ]);
  });
});

describe('413 Payload Too Large', () => {
  it('refuses a valid body over 256 KiB', async () => {
    const answer = await send(platform, key, 'a'.repeat(256 * 1024));
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe('payload_too_large');
    expectRateLimitHeaders(answer.headers);
  });

  it('accepts a body of exactly 256 KiB', async () => {
    const overhead = JSON.stringify({ message: '' }).length;
    expect((await send(platform, key, 'a'.repeat(256 * 1024 - overhead))).status).toBe(202);
  });

  it('checks 400 causes before the size: an invalid body over the limit is a 400', async () => {
    const answer = await call(platform, '/messages', { key, body: `{"message": ${'1'.repeat(300 * 1024)}}` });
    expect(answer.status).toBe(400);
  });
});

describe('401 Unauthorized, one test per cause (with WWW-Authenticate and rate-limit headers)', () => {
  const cases: Array<[string, Record<string, string>]> = [
    ['the Authorization header is missing', {}],
    ['the key is unknown', { Authorization: 'Bearer sk_live_000000000000000000000000000000000000' }],
    ['the key is not a key at all', { Authorization: 'Bearer not-a-key' }],
    ['the scheme is Basic, not Bearer', { Authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` }],
    ['the key is sent without a scheme', { Authorization: '__KEY__' }],
    ['the scheme is Bearer but the key is missing', { Authorization: 'Bearer ' }],
  ];
  it.each(cases)('%s', async (_name, headers) => {
    const resolved = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('__KEY__', key)]));
    const answer = await call(platform, '/messages', { body: { message: 'hi' }, headers: resolved });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    expect(answer.body).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expectRateLimitHeaders(answer.headers);
  });

  it('checks the key before the body: a bad body without a key is a 401', async () => {
    expect((await call(platform, '/messages', { body: 'not json' })).status).toBe(401);
  });

  it('accepts the scheme name in any case (RFC 9110)', async () => {
    expect(
      (await call(platform, '/messages', { body: { message: 'hi' }, headers: { Authorization: `bearer ${key}` } }))
        .status,
    ).toBe(202);
  });
});

describe('GET /messages/{id}', () => {
  it('returns the record to the account that sent it', async () => {
    const sent = await send(platform, key, 'read me');
    const answer = await call(platform, `/messages/${sent.body.id}`, { key });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: sent.body.id, message: 'read me', createdAt: sent.body.createdAt });
    expect(['queued', 'processed']).toContain(answer.body.status);
    expectRateLimitHeaders(answer.headers);
  });

  it('is a 404 for another account, as for an unknown id', async () => {
    const sent = await send(platform, key, 'private');
    const other = await call(platform, `/messages/${sent.body.id}`, { key: platform.demoKeys.pro });
    expect(other.status).toBe(404);
    expect(other.body.code).toBe('not_found');
    expect((await call(platform, '/messages/msg_7ZZZZZZZZZZZZZZZZZZZZZZZZZ', { key })).status).toBe(404);
    expect((await call(platform, '/messages/nonsense', { key })).status).toBe(404);
    // Malformed percent-encoding names nothing either: a 404 with headers, not a gateway error.
    const malformed = await call(platform, '/messages/%ZZ', { key });
    expect(malformed.status).toBe(404);
    expect(malformed.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });

  it('does not consume the sending budget', async () => {
    const first = rateHeaders((await send(platform, key, 'x')).headers);
    const read = rateHeaders((await call(platform, '/messages/msg_7ZZZZZZZZZZZZZZZZZZZZZZZZZ', { key })).headers);
    expect(read.remaining).toBe(first.remaining);
  });
});

describe('other paths and methods', () => {
  it('answers 405 with Allow for a known path', async () => {
    const answer = await call(platform, '/messages', { key, method: 'DELETE' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, POST');
    expectRateLimitHeaders(answer.headers);
  });

  it('answers 404 for an unknown path, after authentication', async () => {
    expect((await call(platform, '/nope', { key })).status).toBe(404);
    expect((await call(platform, '/nope')).status).toBe(401);
  });
});

describe('Idempotency-Key', () => {
  it('replays the original answer for the same key and body, without consuming budget', async () => {
    const headers = { 'Idempotency-Key': `order-${Date.now()}` };
    const first = await send(platform, key, 'once', { headers });
    const again = await send(platform, key, 'once', { headers });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(rateHeaders(again.headers).remaining).toBe(rateHeaders(first.headers).remaining);
  });

  it('refuses the same key with a different body with 409', async () => {
    const headers = { 'Idempotency-Key': `conflict-${Date.now()}` };
    expect((await send(platform, key, 'one', { headers })).status).toBe(202);
    const answer = await send(platform, key, 'two', { headers });
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('idempotency_conflict');
    expectRateLimitHeaders(answer.headers);
  });

  it('scopes keys per API key', async () => {
    const headers = { 'Idempotency-Key': `shared-${Date.now()}` };
    const a = await send(platform, key, 'same', { headers });
    const b = await send(platform, platform.demoKeys.pro, 'same', { headers });
    expect(b.status).toBe(202);
    expect(b.body.id).not.toBe(a.body.id);
  });
});
