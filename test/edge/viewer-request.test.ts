import { beforeEach, describe, expect, it } from 'vitest';
import {
  EDGE_VALUE,
  functionSource,
  isResponse,
  KVS_ID_PLACEHOLDER,
  loadViewerRequest,
  MemoryKeyValueStore,
  viewerRequestEvent,
  viewerRequestSource,
  type CloudFrontFunctionEvent,
  type CloudFrontFunctionResponse,
  type CloudFrontFunctionResult,
  type KeyValueStoreReader,
} from '../../edge/cloudfront-function.js';
import { KVS_ID, PREFIX } from './viewer-request-fixtures.js';

// The real edge/viewer-request.js, run in node:vm against an in-memory KeyValueStore. Its deployed
// source against the runtime's limits, EDGE_VALUE and the in-memory store: cloudfront-function.test.ts.

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
