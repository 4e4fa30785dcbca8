import fc from 'fast-check';
import {
  badBody,
  badType,
  heavyBody,
  hostileKey,
  json,
  jsonType,
  type KeyRef,
  keyRef,
  method,
  oddPath,
  type Spec,
} from './abuse-requests.js';

// The abuse test's traffic (test/integration/abuse.test.ts): the classifier that tells whether a
// generated request, read as the platform reads it, is a valid send or a valid read of the message
// log, and the generation of the whole traffic from a fixed seed.

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
export function isValidList(spec: Spec, demo: readonly string[]): boolean {
  const url = new URL(spec.path, 'http://localhost');
  const segments = url.pathname.split('/').filter(Boolean);
  if (spec.method !== 'GET' || segments.length !== 1 || segments[0] !== 'messages') return false;
  const token = /^Bearer +([^\s]+) *$/i.exec(platformHeader(spec, 'authorization') ?? '')?.[1];
  return token !== undefined && demo.includes(token);
}

export function isValidSend(spec: Spec, demo: readonly string[]): boolean {
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

/** The whole traffic: eight kinds of bad request, sampled from `seed`, interleaved so every batch mixes kinds and keys. */
export function generate(keys: Record<KeyRef, string | undefined>, seed: number): Spec[] {
  const demo = (['free', 'pro', 'business', 'enterprise'] as const).map((p) => keys[p] as string);
  const auth = (ref: KeyRef): Array<[string, string]> => (keys[ref] ? [['Authorization', `Bearer ${keys[ref]}`]] : []);
  const sample = <T>(arb: fc.Arbitrary<T>, numRuns: number, salt: number) =>
    fc.sample(arb, { seed: seed + salt, numRuns });

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
