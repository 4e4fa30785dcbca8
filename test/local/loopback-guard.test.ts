import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlServices } from '../../lambda/control/control-router.js';
import { startControlApi } from '../../local/control-api.js';
import { startLocalDashboard } from '../../local/dashboard.js';
import { isLoopbackHost, refusalOf } from '../../local/loopback-guard.js';

// A page the developer visits must not drive the local servers: not by DNS rebinding (its own
// name in Host, resolved to 127.0.0.1), not by a cross-site request (a form POST needs no CORS
// preflight). Real HTTP against the operator's control port and the local dashboard server.

interface Answer { status: number; body: string }

function send(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const length = body ? { 'Content-Length': String(Buffer.byteLength(body)) } : {};
    const req = request(`${url}${path}`, { method, headers: { ...headers, ...length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Services whose every method records its call and answers an empty object: what a route ran. */
function recordingServices(calls: string[]): ControlServices {
  const service = (name: string) =>
    new Proxy({}, { get: (_, method) => (..._args: unknown[]) => (calls.push(`${name}.${String(method)}`), Promise.resolve({})) });
  return new Proxy({}, { get: (_, name) => (name === 'config' ? {} : service(String(name))) }) as ControlServices;
}

describe('loopback names and page origins', () => {
  it('accepts loopback names with any port, not <name>.localhost', () => {
    for (const host of ['127.0.0.1', '127.0.0.1:3001', 'localhost:3002', 'LOCALHOST', '[::1]:3001', 'localhost.']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ['evil.example', 'evil.example:3001', '127.0.0.1.evil.example', 'localhost.evil.example:3001', '10.0.0.1', '[::2]:1', '', undefined]) {
      expect(isLoopbackHost(host), String(host)).toBe(false);
    }
    expect(isLoopbackHost('shop.localhost:8080')).toBe(false);
  });

  it('refuses a state change from a page not trusted, whether it says so by Origin or Sec-Fetch-Site', () => {
    const trustedOrigins = () => ['http://127.0.0.1:3002'];
    const req = (method: string, headers: Record<string, string>) => ({ method, headers: { host: '127.0.0.1:3001', ...headers } });
    expect(refusalOf(req('POST', {}), { trustedOrigins })).toBeUndefined(); // the CLI, curl
    expect(refusalOf(req('POST', { origin: 'http://127.0.0.1:3002' }), { trustedOrigins })).toBeUndefined();
    expect(refusalOf(req('POST', { origin: 'https://evil.example' }), { trustedOrigins })).toMatchObject({ status: 403 });
    expect(refusalOf(req('DELETE', { origin: 'null' }), { trustedOrigins })).toMatchObject({ status: 403 });
    expect(refusalOf(req('PUT', { 'sec-fetch-site': 'cross-site' }), { trustedOrigins })).toMatchObject({ status: 403 });
    expect(refusalOf(req('GET', { origin: 'https://evil.example' }), { trustedOrigins })).toBeUndefined();
    expect(refusalOf(req('POST', { origin: 'https://evil.example' }), { checkOrigin: false })).toBeUndefined();
  });
});

describe('the operator\'s control port', () => {
  const calls: string[] = [];
  let control: Awaited<ReturnType<typeof startControlApi>>;
  beforeAll(async () => {
    control = await startControlApi(recordingServices(calls), 0);
  });
  afterAll(() => control?.stop());

  it('runs /maintenance/domain-drift-check for the CLI (no Origin)', async () => {
    calls.length = 0;
    const answer = await send(control.url, 'POST', '/maintenance/domain-drift-check');
    expect(answer.status).toBe(202);
    expect(calls).toContain('domains.checkDrift');
  });

  it('refuses a body-less cross-site POST with 403, before any route runs', async () => {
    calls.length = 0;
    const answer = await send(control.url, 'POST', '/maintenance/domain-drift-check', { Origin: 'https://evil.example' });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 403, code: 'forbidden' });
    const fetchMetadata = await send(control.url, 'POST', '/maintenance/domain-drift-check', { 'Sec-Fetch-Site': 'cross-site' });
    expect(fetchMetadata.status).toBe(403);
    expect(calls).toEqual([]);
  });

  it('refuses a DNS-rebinding Host with 421, reads included', async () => {
    calls.length = 0;
    const port = new URL(control.url).port;
    for (const host of [`evil.example:${port}`, `127.0.0.1.evil.example:${port}`]) {
      const read = await send(control.url, 'GET', '/accounts/acct_demo_pro', { Host: host });
      expect(read.status, host).toBe(421);
      const post = await send(control.url, 'POST', '/maintenance/domain-drift-check', { Host: host });
      expect(post.status, host).toBe(421);
    }
    expect(calls).toEqual([]);
    expect((await send(control.url, 'GET', '/accounts/acct_demo_pro', { Host: `localhost:${port}` })).status).not.toBe(421);
  });
});

describe('the local dashboard server', () => {
  const events: APIGatewayProxyEvent[] = [];
  let dashboard: Awaited<ReturnType<typeof startLocalDashboard>>;
  let distDir: string;
  beforeAll(async () => {
    distDir = mkdtempSync(join(tmpdir(), 'dashboard-dist-'));
    writeFileSync(join(distDir, 'index.html'), '<!doctype html><title>dashboard</title>');
    dashboard = await startLocalDashboard({
      port: 0,
      distDir,
      handler: (event) => {
        events.push(event);
        return Promise.resolve({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' });
      },
      messagesApiUrl: 'http://127.0.0.1:3000',
      platformDomain: 'platform.example.com',
      demoOwners: [],
    });
  });
  afterAll(async () => {
    await dashboard?.stop();
    rmSync(distDir, { recursive: true, force: true });
  });

  it('serves its app under every loopback name, and refuses any other Host with 421', async () => {
    const port = new URL(dashboard.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      expect((await send(dashboard.url, 'GET', '/', { Host: host })).status, host).toBe(200);
    }
    for (const host of [`evil.example:${port}`, `localhost.evil.example:${port}`, `shop.localhost:${port}`]) {
      expect((await send(dashboard.url, 'GET', '/config.json', { Host: host })).status, host).toBe(421);
    }
  });

  it('takes sign-ins and API changes from its own pages only', async () => {
    const own = dashboard.url;
    const signIn = JSON.stringify({ email: 'pro@demo.local' });
    const json = { 'Content-Type': 'application/json' };
    expect((await send(own, 'POST', '/api/dev/sign-in', { ...json, Origin: 'https://evil.example' }, signIn)).status).toBe(403);
    const signedIn = await send(own, 'POST', '/api/dev/sign-in', { ...json, Origin: own }, signIn);
    expect(signedIn.status).toBe(200);
    const { token } = JSON.parse(signedIn.body) as { token: string };
    const auth = { ...json, Authorization: `Bearer ${token}` };

    events.length = 0;
    const crossSite = await send(own, 'POST', '/api/accounts/acct_demo_pro/keys', { ...auth, Origin: 'https://evil.example' }, '{"name":"x"}');
    expect(crossSite.status).toBe(403);
    expect(events).toEqual([]);
    const sameOrigin = await send(own, 'POST', '/api/accounts/acct_demo_pro/keys', { ...auth, Origin: own.replace('127.0.0.1', 'localhost') }, '{"name":"x"}');
    expect(sameOrigin.status).toBe(200);
    expect(events).toHaveLength(1);
  });
});
