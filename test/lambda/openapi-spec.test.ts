import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  assertResponseMatchesSpec,
  createResponseValidator,
  type ObservedResponse,
  type ResponseValidator,
} from '../support/openapi.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ID = 'msg_01JD8X3Q5Z8M2N4P6R7S9T0V1W';
const REQUEST_ID = '3f1c9a52-8d0e-4b8a-9a51-6a2f0e7c1d44';

const rateLimitHeaders = {
  'X-Request-Id': REQUEST_ID,
  'X-RateLimit-Limit': '60',
  'X-RateLimit-Remaining': '59',
  'X-RateLimit-Reset': '1795256160',
  'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
  RateLimit: '"minute";r=59;t=30',
};

function accepted(overrides: Partial<ObservedResponse> = {}): ObservedResponse {
  return {
    method: 'POST',
    path: '/messages',
    status: 202,
    headers: {
      ...rateLimitHeaders,
      'content-type': 'application/json; charset=utf-8',
      location: `/messages/${ID}`,
    },
    body: { id: ID, message: 'Hello, world', status: 'queued', createdAt: '2026-11-21T10:15:30.123Z' },
    ...overrides,
  };
}

function problem(status: number, code: string, extra: Record<string, unknown> = {}) {
  return {
    type: `https://docs.platform.example.com/problems/${code}`,
    title: 'Problem',
    status,
    detail: 'Something about this request.',
    code,
    requestId: REQUEST_ID,
    ...extra,
  };
}

function without(headers: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== name.toLowerCase()));
}

let validator: ResponseValidator;
beforeAll(() => {
  validator = createResponseValidator();
});

describe('response validator (openapi/openapi.yaml)', () => {
  it('accepts a correct 202, with a charset parameter and lower-case header names', () => {
    expect(validator.validate(accepted())).toEqual([]);
  });

  it('accepts a 202 given as fetch Headers, and an idempotent replay', () => {
    const headers = new Headers({
      ...rateLimitHeaders,
      'Content-Type': 'application/json',
      Location: `/messages/${ID}`,
      'Idempotent-Replayed': 'true',
    });
    expect(validator.validate(accepted({ headers }))).toEqual([]);
  });

  it('rejects a 202 missing X-RateLimit-Reset', () => {
    const response = accepted();
    const headers = without(response.headers as Record<string, string>, 'X-RateLimit-Reset');
    expect(validator.validate({ ...response, headers })).toEqual([
      'POST /messages (sendMessage) -> 202: missing required header X-RateLimit-Reset',
    ]);
  });

  it('rejects header values that do not match their schema (integers parsed from strings)', () => {
    const response = accepted();
    const headers = {
      ...(response.headers as Record<string, string>),
      'X-RateLimit-Remaining': 'many',
      'X-RateLimit-Reset': String(1795256160 * 1000), // milliseconds instead of seconds
    };
    const violations = validator.validate({ ...response, headers });
    expect(violations).toHaveLength(2);
    expect(violations[0]).toContain('header X-RateLimit-Remaining must be integer');
    expect(violations[1]).toContain('header X-RateLimit-Reset must be <= 9999999999');
  });

  it('rejects a 400 sent as application/json instead of application/problem+json', () => {
    const violations = validator.validate({
      method: 'POST',
      path: '/messages',
      status: 400,
      headers: { ...rateLimitHeaders, 'Content-Type': 'application/json' },
      body: problem(400, 'missing_field', { errors: [{ field: 'message', message: 'is required' }] }),
    });
    expect(violations).toEqual([
      'POST /messages (sendMessage) -> 400: Content-Type "application/json" is not documented (expected application/problem+json)',
    ]);
  });

  it('rejects a body with a field the contract does not have', () => {
    const response = accepted();
    const violations = validator.validate({
      ...response,
      body: { ...(response.body as object), priority: 'high' },
    });
    expect(violations).toEqual([
      'POST /messages (sendMessage) -> 202: body has a property not in the contract: "priority"',
    ]);
  });

  it('rejects a body that breaks the schema (status, id and timestamp formats)', () => {
    const violations = validator.validate(
      accepted({
        body: { id: 'msg_1', message: 'Hello, world', status: 'processed', createdAt: '2026-11-21T10:15:30Z' },
      }),
    );
    expect(violations.some((v) => v.includes('body/id must match pattern'))).toBe(true);
    expect(violations.some((v) => v.includes('body/status must be "queued"'))).toBe(true);
    expect(violations.some((v) => v.includes('body/createdAt must match pattern'))).toBe(true);
  });

  it('rejects an undocumented status', () => {
    expect(
      validator.validate({ method: 'POST', path: '/messages', status: 201, headers: rateLimitHeaders, body: {} }),
    ).toEqual([
      'status 201 is not documented for POST /messages (sendMessage); documented: 202, 400, 401, 409, 413, 429, 503, 504',
    ]);
  });

  it('rejects a 401 without WWW-Authenticate, and accepts it with one', () => {
    const response: ObservedResponse = {
      method: 'GET',
      path: `/messages/${ID}`,
      status: 401,
      headers: { ...rateLimitHeaders, 'Content-Type': 'application/problem+json' },
      body: problem(401, 'invalid_api_key'),
    };
    expect(validator.validate(response)).toEqual([
      'GET /messages/{id} (getMessage) -> 401: missing required header WWW-Authenticate',
    ]);
    const withHeader = {
      ...response,
      headers: { ...rateLimitHeaders, 'Content-Type': 'application/problem+json', 'WWW-Authenticate': 'Bearer' },
    };
    expect(validator.validate(withHeader)).toEqual([]);
  });

  it('checks problem codes per status and the Retry-After of a 429', () => {
    const headers = { ...rateLimitHeaders, 'Content-Type': 'application/problem+json', 'Retry-After': '30' };
    const limited = problem(429, 'rate_limited', { window: 'minute', retryAfter: 30 });
    expect(validator.validate({ method: 'POST', path: '/messages', status: 429, headers, body: limited })).toEqual([]);
    // Reads are refused for a ban, or (without a valid key) when the IP's anonymous budget is spent.
    expect(validator.validate({ method: 'GET', path: `/messages/${ID}`, status: 429, headers, body: limited })).toEqual(
      [],
    );
    expect(
      validator.validate({
        method: 'GET',
        path: `/messages/${ID}`,
        status: 429,
        headers,
        body: problem(429, 'not_found'),
      }),
    ).not.toEqual([]);
    expect(
      validator.validate({
        method: 'POST',
        path: '/messages',
        status: 429,
        headers: { ...headers, 'Retry-After': '0' },
        body: { ...limited, retryAfter: 0 },
      }),
    ).toEqual([
      'POST /messages (sendMessage) -> 429: body/retryAfter must be >= 1',
      'POST /messages (sendMessage) -> 429: header Retry-After must be >= 1 (got "0")',
    ]);
  });

  it('uses the documented fallback for unknown paths (404) and methods (405 with Allow)', () => {
    const headers = { ...rateLimitHeaders, 'Content-Type': 'application/problem+json' };
    expect(
      validator.validate({ method: 'GET', path: '/nope?x=1', status: 404, headers, body: problem(404, 'not_found') }),
    ).toEqual([]);
    expect(
      validator.validate({
        method: 'GET',
        path: '/nope',
        status: 405,
        headers,
        body: problem(405, 'method_not_allowed'),
      }),
    ).toEqual(['status 405 is not documented for GET /nope (no documented path); documented: 401, 404, 429']);
    const notAllowed = { method: 'DELETE', path: '/messages', status: 405, body: problem(405, 'method_not_allowed') };
    expect(validator.validate({ ...notAllowed, headers: { ...headers, Allow: 'GET, POST' } })).toEqual([]);
    expect(validator.validate({ ...notAllowed, headers })).toEqual([
      'DELETE /messages (method not documented) -> 405: missing required header Allow',
    ]);
    expect(validator.validate({ ...notAllowed, headers: { ...headers, Allow: 'GET' } })).toEqual([
      'DELETE /messages (method not documented) -> 405: Allow "GET" does not list POST',
    ]);
    expect(validator.validate({ ...notAllowed, headers: { ...headers, Allow: 'POST' } })).toEqual([
      'DELETE /messages (method not documented) -> 405: Allow "POST" does not list GET',
    ]);
  });

  it('checks the message log (GET /messages): a page of Messages with attempts, nextCursor always present, 400 invalid_field', () => {
    const json = { ...rateLimitHeaders, 'content-type': 'application/json' };
    const item = { id: ID, message: 'Hello', status: 'processed', createdAt: '2026-11-21T10:15:30.123Z', attempts: 2, result: { ok: true } };
    const page = (body: unknown) => ({ method: 'GET', path: '/messages', status: 200, headers: json, body });
    expect(validator.validate(page({ data: [item], nextCursor: 'abc' }))).toEqual([]);
    expect(validator.validate(page({ data: [], nextCursor: null }))).toEqual([]);
    expect(validator.validate(page({ data: [item] }))).toEqual([
      'GET /messages (listMessages) -> 200: body is missing the required property "nextCursor"',
    ]);
    const { attempts: _attempts, ...withoutAttempts } = item;
    expect(validator.validate(page({ data: [withoutAttempts], nextCursor: null }))).toEqual([
      'GET /messages (listMessages) -> 200: body/data/0 is missing the required property "attempts"',
    ]);
    const bad = { method: 'GET', path: '/messages', status: 400, headers: { ...rateLimitHeaders, 'content-type': 'application/problem+json' } };
    expect(validator.validate({ ...bad, body: problem(400, 'invalid_field') })).toEqual([]);
    expect(validator.validate({ ...bad, body: problem(400, 'invalid_json') })).not.toEqual([]);
  });

  it('checks the prose rules: problem status, requestId and Location agree with the response', () => {
    const headers = { ...rateLimitHeaders, 'Content-Type': 'application/problem+json' };
    expect(
      validator.validate({
        method: 'GET',
        path: `/messages/${ID}`,
        status: 404,
        headers,
        body: problem(400, 'not_found', { requestId: 'other' }),
      }),
    ).toEqual([
      'GET /messages/{id} (getMessage) -> 404: problem "status" 400 differs from the HTTP status',
      `GET /messages/{id} (getMessage) -> 404: problem "requestId" other differs from X-Request-Id ${REQUEST_ID}`,
    ]);
    const response = accepted();
    const moved = {
      ...(response.headers as Record<string, string>),
      location: '/messages/msg_01JD8X3Q5Z8M2N4P6R7S9T0V1X',
    };
    expect(validator.validate({ ...response, headers: moved })).toEqual([
      `POST /messages (sendMessage) -> 202: Location "/messages/msg_01JD8X3Q5Z8M2N4P6R7S9T0V1X" does not point at /messages/${ID}`,
    ]);
  });

  it('strips a stage base path when asked (AWS: /v1)', () => {
    const onAws = createResponseValidator({ basePath: '/v1' });
    expect(
      onAws.validate(accepted({ path: 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/v1/messages' })),
    ).toEqual([]);
  });

  it('assertResponseMatchesSpec throws with every violation', () => {
    expect(() => assertResponseMatchesSpec(accepted())).not.toThrow();
    expect(() => assertResponseMatchesSpec(accepted({ status: 200 }))).toThrow(
      /POST \/messages -> 200 does not match openapi\/openapi\.yaml:\n {2}- status 200 is not documented/,
    );
  });

  it('every example in the document matches its schema (including x-unmatched-routes, which redocly skips)', () => {
    const checked: string[] = [];
    const failures: string[] = [];
    const visit = (node: unknown, where: string): void => {
      if (Array.isArray(node)) {
        node.forEach((item, i) => {
          visit(item, `${where}/${i}`);
        });
        return;
      }
      if (typeof node !== 'object' || node === null) return;
      const object = node as Record<string, unknown>;
      const schema = object.schema;
      if (typeof schema === 'object' && schema !== null) {
        const examples: [string, unknown][] = [];
        if ('example' in object) examples.push([`${where}/example`, object.example]);
        if (typeof object.examples === 'object' && object.examples !== null) {
          for (const [name, example] of Object.entries(object.examples as Record<string, { value?: unknown }>)) {
            examples.push([`${where}/examples/${name}`, example.value]);
          }
        }
        for (const [label, value] of examples) {
          checked.push(label);
          // Header and parameter examples are the header strings; coerce like the validator does.
          const s = schema as Record<string, unknown>;
          const coerced = s.type === 'integer' && typeof value === 'string' ? Number(value) : value;
          failures.push(...validator.validateValue(s, coerced, label));
        }
      }
      for (const [key, value] of Object.entries(object)) visit(value, `${where}/${key}`);
    };
    visit(validator.document.paths, '#/paths');
    visit(validator.document['x-unmatched-routes'], '#/x-unmatched-routes');
    expect(failures).toEqual([]);
    expect(checked.some((l) => l.includes('x-unmatched-routes') && l.includes('methodNotAllowed'))).toBe(true);
    expect(checked.length).toBeGreaterThan(20);
  });
});

describe('redocly lint', () => {
  it('passes with zero errors and zero warnings, offline', async () => {
    const cli = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(
        process.execPath,
        [cli, 'lint', 'openapi/openapi.yaml'],
        {
          cwd: REPO_ROOT,
          timeout: 60_000,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
          resolve({ code, output: `${stdout}${stderr}` });
        },
      );
    });
    expect(result.code, result.output).toBe(0);
    // Exit code 0 still allows warnings; the summary line counts them.
    expect(result.output).toMatch(/Your API description is valid/);
    expect(result.output).not.toMatch(/You have \d+ warnings?/);
  }, 60_000);
});
