import { describe, expect, it } from 'vitest';
import { isJsonMediaType, type RawRequest, validateSendRequest } from '../../../lambda/messages/validation.js';
import { HttpProblem } from '../../../lambda/shared/problem.js';

const MAX = 64;
const JSON_HEADERS = { 'Content-Type': 'application/json' };

function request(body: string | null, headers: Record<string, string | undefined> = JSON_HEADERS): RawRequest {
  return { headers, body, isBase64Encoded: false };
}

function base64Request(bytes: Uint8Array | string, headers: Record<string, string> = JSON_HEADERS): RawRequest {
  return { headers, body: Buffer.from(bytes).toString('base64'), isBase64Encoded: true };
}

/** The HttpProblem that validation throws for `raw`. */
function problemOf(raw: RawRequest, max = MAX): HttpProblem {
  try {
    validateSendRequest(raw, max);
  } catch (error) {
    if (error instanceof HttpProblem) return error;
    throw error;
  }
  throw new Error('expected an HttpProblem, the request was accepted');
}

/** A body {"message":"xxx…"} of exactly `bytes` bytes. */
function bodyOfSize(bytes: number): string {
  const overhead = JSON.stringify({ message: '' }).length;
  const body = JSON.stringify({ message: 'x'.repeat(bytes - overhead) });
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

const INVALID_UTF8 = new Uint8Array([0x7b, 0x22, 0x6d, 0xff, 0xfe, 0x22, 0x7d]);

describe('isJsonMediaType', () => {
  it.each([
    ['application/json', true],
    ['Application/JSON', true],
    ['APPLICATION/JSON; CHARSET=UTF-8', true],
    ['application/json; charset=utf-8', true],
    ['application/json;charset=utf-8', true],
    ['application/json; charset=utf8', true],
    ['application/json; charset="utf-8"', true],
    ['application/json; charset="UTF-8"', true],
    ['  application/json  ', true],
    ['application/json; foo=bar', true],
    ['application/json; charset=iso-8859-1', false],
    ['application/json; charset=utf-16', false],
    ['application/json; charset=', false],
    ['text/plain', false],
    ['text/json', false],
    ['application/jsonx', false],
    ['application/problem+json', false],
    ['application/x-www-form-urlencoded', false],
    ['multipart/form-data; boundary=x', false],
    ['application', false],
    ['', false],
    [undefined, false],
  ])('%j → %s', (contentType, expected) => {
    expect(isJsonMediaType(contentType)).toBe(expected);
  });
});

describe('validateSendRequest: accepted requests', () => {
  it('returns the message and no idempotency key', () => {
    expect(validateSendRequest(request('{"message":"Hello, world"}'), MAX)).toEqual({
      message: 'Hello, world',
      idempotencyKey: undefined,
    });
  });

  it('reads headers in any case and returns the Idempotency-Key', () => {
    const raw = request('{"message":"hi"}', { 'content-type': 'application/json', 'IDEMPOTENCY-KEY': 'order-42' });
    expect(validateSendRequest(raw, MAX)).toEqual({ message: 'hi', idempotencyKey: 'order-42' });
  });

  it('decodes a base64 body (API Gateway binary media types)', () => {
    expect(validateSendRequest(base64Request('{"message":"Grüße 👋"}'), MAX)).toEqual({
      message: 'Grüße 👋',
      idempotencyKey: undefined,
    });
  });

  it('keeps the message exactly, whitespace included', () => {
    expect(validateSendRequest(request('  {"message":"  a\\nb  "}\n'), MAX).message).toBe('  a\nb  ');
  });

  it('accepts an Idempotency-Key of 1 and of 255 printable characters', () => {
    for (const key of ['a', '~'.repeat(255), '!#$%&()*+,-./:;<=>?@[]^_`{|}~']) {
      const raw = request('{"message":"hi"}', { ...JSON_HEADERS, 'Idempotency-Key': key });
      expect(validateSendRequest(raw, MAX).idempotencyKey).toBe(key);
    }
  });
});

describe('validateSendRequest: each problem', () => {
  it.each([
    [
      'no Content-Type',
      request('{"message":"hi"}', {}),
      'unsupported_media_type',
      'Content-Type: application/json is required.',
    ],
    [
      'text/plain',
      request('{"message":"hi"}', { 'Content-Type': 'text/plain' }),
      'unsupported_media_type',
      'Content-Type must be application/json, got "text/plain".',
    ],
    ['an empty body', request(''), 'invalid_json', 'The request body is empty; send a JSON object.'],
    ['no body at all', request(null), 'invalid_json', 'The request body is empty; send a JSON object.'],
    ['a blank body', request(' \n\t '), 'invalid_json', 'The request body is empty; send a JSON object.'],
    [
      'an array',
      request('[{"message":"hi"}]'),
      'invalid_json',
      'The request body must be a JSON object such as {"message": "Hello"}.',
    ],
    [
      'a string',
      request('"hi"'),
      'invalid_json',
      'The request body must be a JSON object such as {"message": "Hello"}.',
    ],
    ['null', request('null'), 'invalid_json', 'The request body must be a JSON object such as {"message": "Hello"}.'],
    ['a number', request('42'), 'invalid_json', 'The request body must be a JSON object such as {"message": "Hello"}.'],
    ['invalid UTF-8', base64Request(INVALID_UTF8), 'invalid_encoding', 'The request body is not valid UTF-8.'],
    [
      'an Idempotency-Key with a space',
      request('{"message":"hi"}', { ...JSON_HEADERS, 'Idempotency-Key': 'a b' }),
      'invalid_idempotency_key',
      'Idempotency-Key must be 1 to 255 printable ASCII characters.',
    ],
  ])('%s → 400 %s', (_what, raw, code, detail) => {
    const problem = problemOf(raw);
    expect({ status: problem.status, code: problem.code, detail: problem.detail, errors: problem.errors }).toEqual({
      status: 400,
      code,
      detail,
      errors: undefined,
    });
  });

  it('reports invalid JSON with the parser message', () => {
    const problem = problemOf(request('{"message": "hi",}'));
    expect(problem.status).toBe(400);
    expect(problem.code).toBe('invalid_json');
    expect(problem.detail).toMatch(/^The request body is not valid JSON: .+/);
  });

  it.each([
    ['an empty key', ''],
    ['a 256-character key', 'k'.repeat(256)],
    ['a non-ASCII key', 'clé'],
    ['a key with a tab', 'a\tb'],
  ])('refuses %s as invalid_idempotency_key', (_what, key) => {
    expect(problemOf(request('{"message":"hi"}', { ...JSON_HEADERS, 'Idempotency-Key': key })).code).toBe(
      'invalid_idempotency_key',
    );
  });

  it('quotes at most 100 characters of a wrong Content-Type', () => {
    const contentType = `text/${'x'.repeat(300)}`;
    expect(problemOf(request('{}', { 'Content-Type': contentType })).detail).toBe(
      `Content-Type must be application/json, got "${contentType.slice(0, 100)}".`,
    );
  });
});

describe('validateSendRequest: field errors', () => {
  it.each([
    ['a missing message', '{}', 'missing_field', [{ field: 'message', message: 'is required' }]],
    ['a number', '{"message":1}', 'invalid_field', [{ field: 'message', message: 'must be a string' }]],
    ['null', '{"message":null}', 'invalid_field', [{ field: 'message', message: 'must be a string' }]],
    ['an object', '{"message":{"text":"hi"}}', 'invalid_field', [{ field: 'message', message: 'must be a string' }]],
    ['an empty message', '{"message":""}', 'invalid_field', [{ field: 'message', message: 'must not be empty' }]],
    [
      'unknown fields, named in body order',
      '{"message":"hi","to":"x","priority":1}',
      'unknown_field',
      [
        { field: 'to', message: 'is not a known field (only "message" is accepted)' },
        { field: 'priority', message: 'is not a known field (only "message" is accepted)' },
      ],
    ],
  ])('%s', (_what, body, code, errors) => {
    const problem = problemOf(request(body));
    expect(problem.status).toBe(400);
    expect(problem.code).toBe(code);
    expect(problem.errors).toEqual(errors);
    expect(problem.detail).toBe(errors.map((e) => `${e.field}: ${e.message}`).join('; '));
  });

  it('puts a missing field before unknown ones, whatever the body order, and names the missing one in code', () => {
    const problem = problemOf(request('{"text":"hi","to":"x"}'));
    expect(problem.code).toBe('missing_field');
    expect(problem.errors).toEqual([
      { field: 'message', message: 'is required' },
      { field: 'text', message: 'is not a known field (only "message" is accepted)' },
      { field: 'to', message: 'is not a known field (only "message" is accepted)' },
    ]);
    expect(problem.detail).toBe(
      'message: is required; text: is not a known field (only "message" is accepted); to: is not a known field (only "message" is accepted)',
    );
  });

  it('puts an invalid field before unknown ones', () => {
    const problem = problemOf(request('{"extra":true,"message":5}'));
    expect(problem.code).toBe('invalid_field');
    expect(problem.errors).toEqual([
      { field: 'message', message: 'must be a string' },
      { field: 'extra', message: 'is not a known field (only "message" is accepted)' },
    ]);
  });

  it('reports an empty message alongside unknown fields, as it does a missing one', () => {
    const problem = problemOf(request('{"message":"","extra":1}'));
    expect(problem.code).toBe('invalid_field');
    expect(problem.errors).toEqual([
      { field: 'message', message: 'must not be empty' },
      { field: 'extra', message: 'is not a known field (only "message" is accepted)' },
    ]);
  });

  it('does not leak the internal code into the errors array', () => {
    for (const error of problemOf(request('{"x":1}')).errors ?? []) {
      expect(Object.keys(error).sort()).toEqual(['field', 'message']);
    }
  });
});

describe('validateSendRequest: size', () => {
  it('accepts a body of exactly maxBodyBytes and refuses one byte more with 413', () => {
    expect(validateSendRequest(request(bodyOfSize(MAX)), MAX).message).toHaveLength(MAX - 14);
    const problem = problemOf(request(bodyOfSize(MAX + 1)));
    expect(problem.status).toBe(413);
    expect(problem.code).toBe('payload_too_large');
    expect(problem.detail).toBe(`The request body must be at most ${MAX} bytes.`);
  });

  it('counts bytes, not characters', () => {
    // {"message":"é…"}: 14 bytes of JSON + 2 bytes per é.
    const fits = JSON.stringify({ message: 'é'.repeat((MAX - 14) / 2) });
    expect(fits.length).toBeLessThan(MAX);
    expect(validateSendRequest(request(fits), MAX).message).toHaveLength(25);
    const over = JSON.stringify({ message: `${'é'.repeat((MAX - 14) / 2)}x` });
    expect(problemOf(request(over)).status).toBe(413);
  });

  it('counts the decoded bytes of a base64 body, not its base64 text', () => {
    const body = bodyOfSize(MAX);
    expect(Buffer.from(body).toString('base64').length).toBeGreaterThan(MAX);
    expect(validateSendRequest(base64Request(body), MAX).message).toHaveLength(MAX - 14);
  });
});

describe('validateSendRequest: order of checks (media type → idempotency key → encoding → JSON → fields → size)', () => {
  const badKey = { 'Idempotency-Key': 'has space' };

  it('media type before the idempotency key', () => {
    const raw = base64Request(INVALID_UTF8, { 'Content-Type': 'text/plain', ...badKey });
    expect(problemOf(raw).code).toBe('unsupported_media_type');
  });

  it('idempotency key before the encoding', () => {
    expect(problemOf(base64Request(INVALID_UTF8, { ...JSON_HEADERS, ...badKey })).code).toBe('invalid_idempotency_key');
  });

  it('encoding before JSON', () => {
    // Invalid UTF-8 inside what would also be invalid JSON.
    expect(problemOf(base64Request(new Uint8Array([0x7b, 0xc3, 0x28]))).code).toBe('invalid_encoding');
  });

  it('JSON before fields and before size', () => {
    const notJson = `{"message":"${'x'.repeat(MAX * 2)}"`;
    expect(problemOf(request(notJson)).code).toBe('invalid_json');
  });

  it('fields before size: an invalid body over the limit is a 400', () => {
    const tooBigAndUnknown = JSON.stringify({ message: 'x'.repeat(MAX * 2), extra: 1 });
    const problem = problemOf(request(tooBigAndUnknown));
    expect([problem.status, problem.code]).toEqual([400, 'unknown_field']);
    const tooBigAndEmpty = JSON.stringify({ message: '', padding: 'x'.repeat(MAX * 2) });
    expect(problemOf(request(tooBigAndEmpty)).status).toBe(400);
  });
});
