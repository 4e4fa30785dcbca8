import ts from 'typescript';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  EDGE_VALUE,
  functionSource,
  isResponse,
  KVS_ID_PLACEHOLDER,
  KVS_LIMITS,
  kvsEntryBytes,
  loadViewerRequest,
  MemoryKeyValueStore,
  viewerRequestEvent,
  viewerRequestSource,
  type CloudFrontFunctionEvent,
  type CloudFrontFunctionResponse,
  type CloudFrontFunctionResult,
  type KeyValueStoreReader,
} from '../../edge/cloudfront-function.js';

// The real edge/viewer-request.js, run in node:vm against an in-memory KeyValueStore.
const KVS_ID = 'a1b2c3d4-5678-90ab-cdef-000000000001';
const PREFIX = 'projects/01JPROJ/deploys/01JDEPLOY';

let kvs: MemoryKeyValueStore;
let logs: string[];
let run: (event: CloudFrontFunctionEvent) => Promise<CloudFrontFunctionResult>;

beforeEach(() => {
  kvs = new MemoryKeyValueStore({
    'site.example.com': EDGE_VALUE.serve(PREFIX),
    'old.example.com': EDGE_VALUE.redirect('site.example.com'),
    'moved.example.com': EDGE_VALUE.redirect('site.example.com', 308),
    'gone.example.com': EDGE_VALUE.removed(),
  });
  logs = [];
  run = loadViewerRequest({ kvsId: KVS_ID, kvs, log: (msg) => logs.push(msg) });
});

const request = (host: string, url: string) => run(viewerRequestEvent({ host, url }));

async function response(host: string, url: string): Promise<CloudFrontFunctionResponse> {
  const result = await request(host, url);
  if (!isResponse(result)) throw new Error(`expected a response, got the request for ${result.uri}`);
  return result;
}

async function servedUri(host: string, url: string): Promise<string> {
  const result = await request(host, url);
  if (isResponse(result)) throw new Error(`expected the request, got ${result.statusCode}`);
  return result.uri;
}

function expectNotServed(result: CloudFrontFunctionResponse, text = 'This domain is not served') {
  expect(result.statusCode).toBe(404);
  expect(result.headers['cache-control']).toEqual({ value: 'no-store' });
  expect(result.headers['content-type']?.value).toMatch(/^text\/html/);
  expect(JSON.stringify(result.body)).toContain(text);
}

describe('serve', () => {
  it.each([
    ['/', `/${PREFIX}/index.html`],
    ['/about', `/${PREFIX}/about/index.html`],
    ['/about/', `/${PREFIX}/about/index.html`],
    ['/app.js', `/${PREFIX}/app.js`],
    ['/a.b/c', `/${PREFIX}/a.b/c/index.html`],
    ['/assets/logo.v2.svg', `/${PREFIX}/assets/logo.v2.svg`],
    ['/.well-known/security.txt', `/${PREFIX}/.well-known/security.txt`],
  ])('rewrites %s to the live deploy: %s', async (uri, expected) => {
    expect(await servedUri('site.example.com', uri)).toBe(expected);
  });

  it('returns the request itself, query string untouched', async () => {
    const event = viewerRequestEvent({ host: 'site.example.com', url: '/about?x=1&x=2' });
    const result = await run(event);
    expect(result).toBe(event.request);
    expect(event.request.querystring).toEqual({ x: { value: '1', multiValue: [{ value: '1' }, { value: '2' }] } });
  });

  it('matches the host lower-cased, without its port (or a trailing dot)', async () => {
    expect(await servedUri('SITE.Example.COM:8443', '/about')).toBe(`/${PREFIX}/about/index.html`);
    expect(await servedUri('site.example.com:80', '/')).toBe(`/${PREFIX}/index.html`);
    expect(await servedUri('site.example.com.', '/')).toBe(`/${PREFIX}/index.html`);
  });

  it('switches deploys by rewriting one key: the next request gets the new deploy', async () => {
    kvs.put('site.example.com', EDGE_VALUE.serve('projects/01JPROJ/deploys/01JNEXT'));
    expect(await servedUri('site.example.com', '/')).toBe('/projects/01JPROJ/deploys/01JNEXT/index.html');
  });

  it.each(['/../other/index.html', '/a/../../x', '/%2e%2e/x', '/a/%2E%2E/b', '/a/./b', '/a\\..\\b', '/%E0%A4%A'])(
    'refuses the path %s (no dot segments or malformed escapes reach the origin)',
    async (uri) => {
      expectNotServed(await response('site.example.com', uri), 'Not found');
    },
  );
});

describe('redirect', () => {
  it('answers 301 by default with Location on the target host, path kept', async () => {
    const result = await response('old.example.com', '/docs/intro');
    expect(result).toMatchObject({ statusCode: 301, statusDescription: 'Moved Permanently' });
    expect(result.headers.location).toEqual({ value: 'https://site.example.com/docs/intro' });
    expect(result.body).toBeUndefined();
  });

  it('uses the stored status (308)', async () => {
    const result = await response('moved.example.com', '/');
    expect(result).toMatchObject({ statusCode: 308, statusDescription: 'Permanent Redirect' });
    expect(result.headers.location).toEqual({ value: 'https://site.example.com/' });
  });

  it.each([[302, 'Found'], [307, 'Temporary Redirect']] as const)('supports %i', async (status, description) => {
    kvs.put('tmp.example.com', EDGE_VALUE.redirect('site.example.com', status));
    expect(await response('tmp.example.com', '/x')).toMatchObject({ statusCode: status, statusDescription: description });
  });

  it('keeps path and query exactly (repeated keys, bare keys, order) via rawQueryString()', async () => {
    const result = await response('old.example.com', '/p/q?x=1&y=2&x=3&flag');
    expect(result.headers.location?.value).toBe('https://site.example.com/p/q?x=1&y=2&x=3&flag');
    expect((await response('old.example.com', '/p?a=%20b&c=d%26e')).headers.location?.value).toBe('https://site.example.com/p?a=%20b&c=d%26e');
    expect((await response('old.example.com', '/p?')).headers.location?.value).toBe('https://site.example.com/p?');
    expect((await response('old.example.com', '/p')).headers.location?.value).toBe('https://site.example.com/p');
  });

  it('rebuilds the query from event.request.querystring when rawQueryString() is absent', async () => {
    const event = viewerRequestEvent({ host: 'old.example.com', url: '/p/q?x=1&y=2&x=3&flag' });
    delete event.request.rawQueryString;
    const result = await run(event);
    if (!isResponse(result)) throw new Error('expected a redirect');
    const location = new URL(result.headers.location?.value ?? '');
    expect(`${location.origin}${location.pathname}`).toBe('https://site.example.com/p/q');
    // The parsed object groups repeated keys, so only their interleaving can differ from the original.
    expect(location.search).toBe('?x=1&x=3&y=2&flag');
    const pairs = (search: string) => search.slice(1).split('&').sort();
    expect(pairs(location.search)).toEqual(pairs('?x=1&y=2&x=3&flag'));
    expect(location.searchParams.getAll('x')).toEqual(['1', '3']);
  });

  it('has a bounded browser cache so a changed redirect is picked up', async () => {
    expect((await response('old.example.com', '/')).headers['cache-control']).toEqual({ value: 'max-age=3600' });
  });
});

describe('refusals', () => {
  it('refuses a removed domain with 404, no-store', async () => {
    expectNotServed(await response('gone.example.com', '/about?x=1'));
  });

  it('refuses on the very next request once a domain is marked removed', async () => {
    expect(await servedUri('site.example.com', '/')).toBe(`/${PREFIX}/index.html`);
    kvs.put('site.example.com', EDGE_VALUE.removed());
    expectNotServed(await response('site.example.com', '/'));
  });

  it('refuses an unknown host (missing key) with 404, no-store', async () => {
    expectNotServed(await response('unknown.example.org', '/'));
  });

  it('refuses a request without a Host header', async () => {
    const event = viewerRequestEvent({ host: 'site.example.com', url: '/' });
    delete event.request.headers.host;
    const result = await run(event);
    if (!isResponse(result)) throw new Error('expected a response');
    expectNotServed(result);
  });

  it.each([
    ['not JSON', '{"s":'],
    ['no known field', '{"y":1}'],
    ['a JSON string', '"projects/p/deploys/d"'],
    ['null', 'null'],
    ['a prefix with dot segments', '{"s":"projects/../secrets"}'],
    ['a non-string prefix', '{"s":5}'],
    ['a target with a path', '{"r":"evil.example/x","c":301}'],
    ['a target with credentials', '{"r":"user@evil.example","c":301}'],
    ['a non-redirect status', '{"r":"site.example.com","c":200}'],
    ['a status as a string', '{"r":"site.example.com","c":"301"}'],
    ['a removed marker that is not 1', '{"x":true}'],
  ])('fails closed on a corrupt value (%s): 404 and a log line, no throw', async (_label, value) => {
    kvs.put('bad.example.com', value);
    expectNotServed(await response('bad.example.com', '/'));
    expect(logs).toEqual([expect.stringContaining('bad value for bad.example.com')]);
  });

  it('fails closed when the KeyValueStore errors for another reason', async () => {
    const failing: KeyValueStoreReader = { get: () => Promise.reject(new Error('KVS throttled')) };
    const handler = loadViewerRequest({ kvsId: KVS_ID, kvs: failing, log: (msg) => logs.push(msg) });
    const result = await handler(viewerRequestEvent({ host: 'site.example.com', url: '/' }));
    if (!isResponse(result)) throw new Error('expected a response');
    expectNotServed(result);
    expect(logs).toEqual(['kvs get site.example.com: Error: KVS throttled']);
  });
});

describe('loading the function', () => {
  it('keeps the placeholder in the checked-in file and asks cf.kvs() for the substituted id', () => {
    expect(viewerRequestSource()).toContain(`const kvsId = '${KVS_ID_PLACEHOLDER}';`);
    expect(viewerRequestSource()).toContain('const kvsHandle = cf.kvs(kvsId);');
    // The stand-in cf.kvs() throws for any other id, so a successful load proves the substitution.
    expect(() => loadViewerRequest({ kvsId: 'another-id', kvs })).not.toThrow();
    expect(() => loadViewerRequest({ kvsId: '', kvs })).toThrow(/Unusable/);
  });

  it('gives the function no Node APIs', async () => {
    const { runInNewContext } = await import('node:vm');
    const globals = ['require', 'process', 'setTimeout', 'module', 'globalThis.fetch'];
    const code = `${functionSource(KVS_ID).replace('import cf from \'cloudfront\';', '')}\n;[${globals.map((g) => `typeof ${g}`).join(',')}]`;
    // The loader uses the same kind of bare context; this guards the assumption.
    expect(runInNewContext(code, { cf: { kvs: () => kvs }, console })).toEqual(globals.map(() => 'undefined'));
  });
});

describe('CloudFront Functions limits (runtime cloudfront-js-2.0)', () => {
  const deployed = functionSource(KVS_ID);

  it('is under the 10 KB function size quota (and small)', () => {
    expect(Buffer.byteLength(deployed, 'utf8')).toBeLessThan(10_240);
    expect(Buffer.byteLength(deployed, 'utf8')).toBeLessThan(4_096);
  });

  it('is the module shape the runtime expects', () => {
    expect(deployed.startsWith('import cf from \'cloudfront\';\n')).toBe(true);
    expect(deployed).toMatch(/^async function handler\(event\) \{$/m);
    expect(deployed).toContain(`const kvsId = '${KVS_ID}';`);
    expect(deployed).toContain('const kvsHandle = cf.kvs(kvsId);');
    expect(deployed).not.toContain(KVS_ID_PLACEHOLDER);
    expect(deployed).not.toContain('require(');
    expect(deployed).not.toMatch(/^export /m);
  });

  it('substitutes only ids that fit in the quoted literal (a CDK token string does)', () => {
    expect(functionSource('${Token[TOKEN.123]}')).toContain('const kvsId = \'${Token[TOKEN.123]}\';');
    expect(() => functionSource('x\'; evil(); \'')).toThrow(/Unusable/);
    expect(() => functionSource('')).toThrow(/Unusable/);
  });

  it('uses only syntax the runtime 2.0 documentation lists', () => {
    expect(unsupportedSyntax(deployed)).toEqual([]);
  });

  it('the syntax check does catch what the runtime lacks', () => {
    const sample = [
      'import cf from \'cloudfront\';',
      'import x from \'other\';',
      'class A {}',
      'const { a } = cf; const [b] = [1];',
      'function f(p = 1) { return [...p]; }',
      'for (const v of []) {}',
      'const o = cf?.kvs ?? 1;',
      'const g = async () => 1;',
      'function* gen() {}',
      'const r = /(?<name>x)/u;',
      'const t = tag`x`;',
      'require(\'fs\');',
      'export default 1;',
      'async function handler(event) { return event; }',
    ].join('\n');
    expect(unsupportedSyntax(sample)).toEqual(expect.arrayContaining([
      expect.stringMatching(/^import of "other"/),
      expect.stringMatching(/^ClassDeclaration/),
      expect.stringMatching(/^ObjectBindingPattern/),
      expect.stringMatching(/^ArrayBindingPattern/),
      expect.stringMatching(/^default parameter/),
      expect.stringMatching(/^SpreadElement/),
      expect.stringMatching(/^ForOfStatement/),
      expect.stringMatching(/^optional chaining/),
      expect.stringMatching(/^QuestionQuestionToken/),
      expect.stringMatching(/^async closure/),
      expect.stringMatching(/^generator/),
      expect.stringMatching(/^regular expression/),
      expect.stringMatching(/^TaggedTemplateExpression/),
      expect.stringMatching(/^identifier require/),
      expect.stringMatching(/^ExportAssignment/),
    ]));
  });
});

describe('EDGE_VALUE', () => {
  it('produces the exact KeyValueStore values', () => {
    expect(EDGE_VALUE.serve(PREFIX)).toBe(`{"s":"${PREFIX}"}`);
    expect(EDGE_VALUE.redirect('www.example.com')).toBe('{"r":"www.example.com","c":301}');
    expect(EDGE_VALUE.redirect('www.example.com', 308)).toBe('{"r":"www.example.com","c":308}');
    expect(EDGE_VALUE.removed()).toBe('{"x":1}');
  });

  it('refuses values the function would reject', () => {
    expect(() => EDGE_VALUE.serve('projects/../x')).toThrow(/prefix/);
    expect(() => EDGE_VALUE.serve('/projects/p')).toThrow(/prefix/);
    expect(() => EDGE_VALUE.redirect('Example.com')).toThrow(/host/);
    expect(() => EDGE_VALUE.redirect('example.com/path')).toThrow(/host/);
    expect(() => EDGE_VALUE.redirect('example.com', 303 as never)).toThrow(/status/);
  });
});

describe('MemoryKeyValueStore', () => {
  it('reads like the runtime handle: string by default, json, bytes; a missing key rejects', async () => {
    const store = new MemoryKeyValueStore({ k: '{"s":"a"}' });
    expect(await store.get('k')).toBe('{"s":"a"}');
    expect(await store.get('k', { format: 'json' })).toEqual({ s: 'a' });
    expect(Buffer.from(await store.get('k', { format: 'bytes' }) as Uint8Array).toString()).toBe('{"s":"a"}');
    expect(store.delete('k')).toBe(true);
    await expect(store.get('k')).rejects.toThrow(/not found/i);
  });

  it('enforces the KeyValueStore key and value sizes', () => {
    const store = new MemoryKeyValueStore();
    expect(() => store.put('k'.repeat(513), 'v')).toThrow(/key/);
    expect(() => store.put('k', 'v'.repeat(1025))).toThrow(/value/);
    store.put('k'.repeat(512), 'v'.repeat(1024));
  });

  it('sizes itself as UTF-8 bytes of keys plus values: puts add, overwrites replace, deletes give back', () => {
    const store = new MemoryKeyValueStore();
    store.put('www.example.com', '{"x":1}');
    expect(store.sizeBytes).toBe(15 + 7);
    store.put('www.example.com', '{"s":"projects/p/deploys/d"}');
    expect(store.sizeBytes).toBe(15 + 28);
    store.put('xn--bcher-kva.example', '{"r":"é.example"}');
    expect(store.sizeBytes).toBe(15 + 28 + 21 + 18);
    expect(kvsEntryBytes('é', 'ü')).toBe(4);
    expect(store.delete('www.example.com')).toBe(true);
    expect(store.sizeBytes).toBe(21 + 18);
    expect(store.itemCount).toBe(1);
    expect(store.delete('www.example.com')).toBe(false);
    expect(store.sizeBytes).toBe(21 + 18);
  });

  it('refuses a put past the store size (ServiceQuotaExceededException) and keeps what it had', () => {
    expect(KVS_LIMITS.storeBytes).toBe(5_000_000);
    const store = new MemoryKeyValueStore({}, { maxBytes: 30 });
    store.put('a.example', '{"x":1}');
    let error: unknown;
    try {
      store.put('b.example', '{"x":1}');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: 'ServiceQuotaExceededException' });
    expect(store.has('b.example')).toBe(false);
    expect(store.sizeBytes).toBe(16);
    store.put('a.example', '{"x":2}');
    expect(store.value('a.example')).toBe('{"x":2}');
  });

  it('versions itself like the real store: every write moves the ETag, a write with a stale one is refused', () => {
    const store = new MemoryKeyValueStore();
    const first = store.etag;
    store.put('a.example', '{"x":1}', first);
    const second = store.etag;
    expect(second).not.toBe(first);
    expect(() => store.delete('a.example', first)).toThrow(expect.objectContaining({ name: 'ConflictException' }));
    expect(() => store.put('a.example', '{"x":2}', first)).toThrow(expect.objectContaining({ name: 'ConflictException' }));
    expect(store.value('a.example')).toBe('{"x":1}');
    expect(store.delete('a.example', second)).toBe(true);
    expect(store.etag).not.toBe(second);
  });
});

/**
 * Constructs the cloudfront-js-2.0 runtime does not list (functions-javascript-runtime-20):
 * supported are ES 5.1, const/let, async/await (async closures are not), template literals,
 * arrow functions, rest parameters and `**`. Returns one line per offending construct.
 */
function unsupportedSyntax(code: string): string[] {
  const file = ts.createSourceFile('viewer-request.js', code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const found: string[] = [];
  const where = (node: ts.Node) => `line ${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
  const flag = (what: string, node: ts.Node) => found.push(`${what} at ${where(node)}`);
  const banned = new Set([
    ts.SyntaxKind.ClassDeclaration, ts.SyntaxKind.ClassExpression, ts.SyntaxKind.ObjectBindingPattern,
    ts.SyntaxKind.ArrayBindingPattern, ts.SyntaxKind.SpreadElement, ts.SyntaxKind.SpreadAssignment,
    ts.SyntaxKind.ForOfStatement, ts.SyntaxKind.YieldExpression, ts.SyntaxKind.TaggedTemplateExpression,
    ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.QuestionQuestionEqualsToken, ts.SyntaxKind.BarBarEqualsToken,
    ts.SyntaxKind.AmpersandAmpersandEqualsToken, ts.SyntaxKind.BigIntLiteral, ts.SyntaxKind.ExportAssignment,
    ts.SyntaxKind.ExportDeclaration, ts.SyntaxKind.Decorator, ts.SyntaxKind.MetaProperty,
  ]);
  const bannedIdentifiers = new Set(['require', 'process', 'eval', 'Function', 'setTimeout', 'setInterval', 'fetch', 'module', 'exports']);
  const isAsync = (node: ts.Node) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.AsyncKeyword);
  const visit = (node: ts.Node): void => {
    if (banned.has(node.kind)) flag(ts.SyntaxKind[node.kind], node);
    if (ts.isImportDeclaration(node)) {
      const from = (node.moduleSpecifier as ts.StringLiteral).text;
      const defaultCf = node.importClause?.name?.text === 'cf' && !node.importClause.namedBindings;
      if (from !== 'cloudfront' || !defaultCf || node !== file.statements[0]) flag(`import of "${from}"`, node);
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) flag('dynamic import', node);
    const chained = ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node) ||
      ts.isCallExpression(node);
    if (chained && node.questionDotToken) flag('optional chaining', node);
    if (ts.isParameter(node) && node.initializer) flag('default parameter', node);
    if (ts.isFunctionLike(node) && 'asteriskToken' in node && node.asteriskToken) flag('generator', node);
    if (isAsync(node) && !(ts.isFunctionDeclaration(node) && node.parent === file)) flag('async closure', node);
    if (ts.isRegularExpressionLiteral(node)) {
      const flags = node.text.slice(node.text.lastIndexOf('/') + 1);
      if (/[^gim]/.test(flags) || /\(\?<[=!]?|\\p\{|\\k</.test(node.text)) flag('regular expression beyond ES5', node);
    }
    if (ts.isNumericLiteral(node) && node.getText(file).includes('_')) flag('numeric separator', node);
    const parent = node.parent as ts.Node | undefined;
    const hasName = parent && (ts.isPropertyAccessExpression(parent) || ts.isPropertyAssignment(parent));
    const member = hasName ? parent : undefined;
    const isMemberName = member?.name === node;
    if (ts.isIdentifier(node) && bannedIdentifiers.has(node.text) && !isMemberName) {
      flag(`identifier ${node.text}`, node);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}
