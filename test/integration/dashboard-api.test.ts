import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertResponseMatchesSpec,
  createResponseValidator,
  readResponse,
  type ResponseValidator,
} from '../support/openapi.js';
import { CONTROL_API_OPENAPI_PATH } from '../support/openapi-document.js';
import { send, startTestPlatform, type TestPlatform } from '../support/platform.js';

// The dashboard's server on the local platform: its runtime config, the development sign-in, and
// the owner-scoped control API through the same Lambda handler as on AWS (Cognito-shaped claims).
// The built app itself is exercised in Chromium by test/browser; here a stand-in index.html.

type Body = Record<string, unknown>;
interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Body;
}

let platform: TestPlatform;
let dashboard: string;
let validator: ResponseValidator;

async function signIn(email: string): Promise<string> {
  const res = await fetch(`${dashboard}/api/dev/sign-in`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

/** One owner request to the dashboard's API; every answer of the handler must match the document. */
async function api(token: string | undefined, method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${dashboard}/api${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const observed = await readResponse(method, path, res);
  // The stand-in authorizer's own 401 is not an answer of the API (as on AWS): not in the document.
  if (res.status !== 401) assertResponseMatchesSpec(observed, validator);
  const parsed = typeof observed.body === 'object' && observed.body !== null ? (observed.body as Body) : {};
  return { status: res.status, headers: res.headers, body: parsed };
}

const expectProblem = (answer: Answer, status: number, code: string) =>
  expect({ status: answer.status, code: answer.body.code }, JSON.stringify(answer.body)).toEqual({ status, code });

beforeAll(async () => {
  validator = createResponseValidator({ specPath: CONTROL_API_OPENAPI_PATH });
  const distDir = mkdtempSync(join(tmpdir(), 'dashboard-dist-'));
  mkdirSync(join(distDir, 'assets'));
  writeFileSync(join(distDir, 'index.html'), '<!doctype html><title>Dashboard</title><script src="assets/app.js"></script>');
  writeFileSync(join(distDir, 'assets', 'app.js'), 'console.log("app");');
  platform = await startTestPlatform({ dashboard: { port: 0, distDir } });
  dashboard = platform.dashboardUrl as string;
});

afterAll(async () => {
  await platform?.stop();
});

describe('dashboard server', () => {
  it('serves the app, with its runtime config and security headers, and nothing outside it', async () => {
    const index = await fetch(`${dashboard}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('content-security-policy')).toContain('frame-ancestors \'none\'');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const asset = await fetch(`${dashboard}/assets/app.js`);
    expect(asset.headers.get('cache-control')).toContain('immutable');

    const config = (await (await fetch(`${dashboard}/config.json`)).json()) as Body;
    expect(config).toEqual({
      apiBaseUrl: '/api',
      messagesApiUrl: platform.baseUrl,
      platformDomain: 'platform.example.com',
      // The local edge, so the app pairs each platform URL with the way that works locally.
      localEdgeUrl: platform.edgeUrl,
      auth: {
        kind: 'dev',
        demoOwners: [
          { email: 'free@demo.local', plan: 'free' },
          { email: 'pro@demo.local', plan: 'pro' },
          { email: 'business@demo.local', plan: 'business' },
          { email: 'enterprise@demo.local', plan: 'enterprise' },
        ],
      },
    });

    expect((await fetch(`${dashboard}/nope.html`)).status).toBe(404);
    expect((await fetch(`${dashboard}/..%2F..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${dashboard}/%2e%2e/%2e%2e/package.json`)).status).toBe(404);
    expect((await fetch(`${dashboard}/`, { method: 'POST' })).status).toBe(405);
  });

  it('refuses the API without a valid sign-in, and refuses a sign-in without an email', async () => {
    const missing = await api(undefined, 'GET', '/me');
    expectProblem(missing, 401, 'unauthorized');
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const token = await signIn('someone@example.com');
    const [payload] = token.split('.');
    // A token signed by someone else (here: no signature at all, or another payload) is refused.
    expectProblem(await api(`${payload}.AAAA`, 'GET', '/me'), 401, 'unauthorized');
    const forged = Buffer.from(JSON.stringify({ sub: 'dev:pro@demo.local', email: 'pro@demo.local', exp: 9e9 })).toString('base64url');
    expectProblem(await api(`${forged}.${token.split('.')[1]}`, 'GET', '/me'), 401, 'unauthorized');

    for (const body of ['{}', '{"email":"not an email"}', 'email=x', '{"email": 42}']) {
      const res = await fetch(`${dashboard}/api/dev/sign-in`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
      expect(res.status, body).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
    }
  });
});

describe('owners on the control API', () => {
  it('a new owner gets one Free account, however many first requests race', async () => {
    const token = await signIn('New.Owner@Example.com');
    const answers = await Promise.all(Array.from({ length: 8 }, () => api(token, 'GET', '/me')));
    const accountIds = new Set(answers.map((a) => (a.body.account as Body).accountId));
    expect(accountIds.size).toBe(1);
    const me = answers[0] as Answer;
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      ownerId: 'dev:new.owner@example.com',
      email: 'new.owner@example.com',
      account: { name: 'new.owner@example.com', plan: 'free', customLimits: false },
    });
    // Signing in again (a new token) is the same owner, the same account.
    const again = await api(await signIn('new.owner@example.com'), 'GET', '/me');
    expect((again.body.account as Body).accountId).toBe((me.body.account as Body).accountId);
  });

  it('the demo owners own the demo accounts; plans list which features need Pro', async () => {
    const me = await api(await signIn('pro@demo.local'), 'GET', '/me');
    expect((me.body.account as Body).accountId).toBe('acct_demo_pro');
    const plans = await api(await signIn('free@demo.local'), 'GET', '/plans');
    expect((plans.body.plans as Body[]).find((p) => p.id === 'free')).toMatchObject({ customDomains: false });
  });

  it('an owner creates a key (secret once), sends with it, revokes it; never another account', async () => {
    const token = await signIn('keys-owner@example.com');
    const accountId = ((await api(token, 'GET', '/me')).body.account as Body).accountId as string;

    const created = await api(token, 'POST', `/accounts/${accountId}/keys`, { name: 'production' });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^sk_live_/);
    const keyId = (created.body.key as Body).keyId as string;
    const listed = await api(token, 'GET', `/accounts/${accountId}/keys`);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect((listed.body.keys as Body[]).map((k) => k.keyId)).toEqual([keyId]);

    expect((await send(platform, secret, 'from the dashboard')).status).toBe(202);
    const usage = await api(token, 'GET', `/accounts/${accountId}/usage`);
    expect((usage.body.keys as Array<{ used: { minute: number } }>)[0]?.used.minute).toBe(1);
    expect(usage.body.minute).toMatchObject({ used: 1 });

    expect((await api(token, 'DELETE', `/accounts/${accountId}/keys/${keyId}`)).body.status).toBe('revoked');
    expect((await send(platform, secret, 'after revoke')).status).toBe(401);

    // Another account is answered as absent, whatever the route; the operator's routes are refused.
    expectProblem(await api(token, 'GET', '/accounts/acct_demo_free/keys'), 404, 'account_not_found');
    expectProblem(await api(token, 'POST', '/accounts/acct_demo_free/keys', { name: 'x' }), 404, 'account_not_found');
    expectProblem(await api(token, 'DELETE', `/accounts/acct_demo_free/keys/${keyId}`), 404, 'account_not_found');
    expectProblem(await api(token, 'GET', '/accounts/acct_demo_free/projects'), 404, 'account_not_found');
    expectProblem(await api(token, 'PUT', `/accounts/${accountId}/plan`, { plan: 'enterprise' }), 403, 'forbidden');
    expectProblem(await api(token, 'DELETE', `/accounts/${accountId}/keys/${keyId}/ban`), 403, 'forbidden');
    expectProblem(await api(token, 'POST', '/accounts', { name: 'x', plan: 'pro' }), 403, 'forbidden');
    expect((await api(token, 'GET', '/me')).body.account).toMatchObject({ plan: 'free' });
  });

  it('a Free owner\'s project cannot get a custom domain: the plan gate, not an error', async () => {
    const token = await signIn('free@demo.local');
    const project = await api(token, 'POST', '/accounts/acct_demo_free/projects', { slug: 'free-site' });
    expect(project.status).toBe(201);
    const projectId = project.body.projectId as string;
    const added = await api(token, 'POST', `/accounts/acct_demo_free/projects/${projectId}/domains`, { domain: 'www.example.com' });
    expectProblem(added, 403, 'plan_required');
  });
});
