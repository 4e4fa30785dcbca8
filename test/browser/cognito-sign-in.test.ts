import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard, launchBrowser, newContext, screenshot, watchErrors } from './support.js';

// The AWS sign-in path (Cognito managed login, authorization code + PKCE) in the real browser,
// against a stand-in for Cognito's /oauth2/authorize, /oauth2/token and /logout that checks
// what Cognito checks: the S256 challenge against the verifier, the client, the redirect URI.
// The API it signs in to is a stand-in too, on another origin (as API Gateway is on AWS), that
// accepts only the ID token the token endpoint issued. The control API routes themselves are
// covered by the other browser tests against the local platform.
const CLIENT_ID = 'dashboard-client';
const EMAIL = 'owner@example.org';

let browser: Browser;
let dashboard: Server;
let cognito: Server;
let api: Server;
let dashboardUrl: string;
let cognitoUrl: string;
let apiUrl: string;

interface Authorize {
  readonly params: Record<string, string>;
  readonly code: string;
}
const authorizations: Authorize[] = [];
const tokenRequests: Array<{ params: Record<string, string>; ok: boolean }> = [];
const logouts: Array<Record<string, string>> = [];
const apiAuthorizations: string[] = [];
let idToken = '';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const close = (server: Server | undefined) =>
  new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', kid: 'test' })}.${part(claims)}.${randomBytes(16).toString('base64url')}`;
}

/** Cognito's managed login, reduced to what the dashboard relies on. */
async function handleCognito(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', cognitoUrl);
  const query = Object.fromEntries(url.searchParams);
  if (req.method === 'GET' && url.pathname === '/oauth2/authorize') {
    // The user signs in on the managed login page; then Cognito redirects back with a code.
    const code = randomBytes(12).toString('hex');
    authorizations.push({ params: query, code });
    const back = new URL(query.redirect_uri ?? '');
    back.searchParams.set('code', code);
    back.searchParams.set('state', query.state ?? '');
    res.writeHead(302, { Location: back.toString() });
    return void res.end();
  }
  if (req.method === 'POST' && url.pathname === '/oauth2/token') {
    const params = Object.fromEntries(new URLSearchParams(await body(req)));
    const issued = authorizations.find((a) => a.code === params.code);
    const ok =
      req.headers['content-type'] === 'application/x-www-form-urlencoded' &&
      params.grant_type === 'authorization_code' &&
      params.client_id === CLIENT_ID &&
      issued !== undefined &&
      params.redirect_uri === issued.params.redirect_uri &&
      s256(params.code_verifier ?? '') === issued.params.code_challenge;
    tokenRequests.push({ params, ok });
    const cors = { 'Access-Control-Allow-Origin': dashboardUrl };
    if (!ok) return json(res, 400, { error: 'invalid_grant' }, cors);
    idToken = jwt({ sub: 'sub-1', email: EMAIL, exp: Math.floor(Date.now() / 1000) + 3600, token_use: 'id' });
    return json(res, 200, { id_token: idToken, access_token: jwt({ token_use: 'access' }), expires_in: 3600, token_type: 'Bearer' }, cors);
  }
  if (req.method === 'GET' && url.pathname === '/logout') {
    logouts.push(query);
    res.writeHead(302, { Location: query.logout_uri ?? '/' });
    return void res.end();
  }
  json(res, 404, { error: 'not_found' });
}

const ACCOUNT = {
  accountId: 'acct_cognito_test',
  name: 'Owner',
  plan: 'pro',
  limits: { perMinute: 300, perDay: 10000 },
  customLimits: false,
  createdAt: '2026-11-21T10:00:00.000Z',
};

/** The control API behind the Cognito authorizer: only the issued ID token gets in. */
function handleApi(req: IncomingMessage, res: ServerResponse) {
  const cors = {
    'Access-Control-Allow-Origin': dashboardUrl,
    'Access-Control-Allow-Headers': 'Authorization, Content-Type',
    'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, OPTIONS',
  };
  if (req.method === 'OPTIONS') {
    res.writeHead(204, cors);
    return void res.end();
  }
  const authorization = req.headers.authorization ?? '';
  apiAuthorizations.push(authorization);
  if (!idToken || authorization !== `Bearer ${idToken}`) return json(res, 401, { message: 'Unauthorized' }, cors);
  const path = new URL(req.url ?? '/', apiUrl).pathname;
  if (path === '/prod/me') return json(res, 200, { ownerId: 'sub-1', email: EMAIL, account: ACCOUNT }, cors);
  if (path === '/prod/plans') {
    return json(res, 200, {
      plans: [
        { id: 'free', displayName: 'Free', limits: { perMinute: 60, perDay: 1000 }, customLimits: false, customDomains: false },
        { id: 'pro', displayName: 'Pro', limits: { perMinute: 300, perDay: 10000 }, customLimits: false, customDomains: true },
      ],
    }, cors);
  }
  if (path === `/prod/accounts/${ACCOUNT.accountId}/usage`) {
    // The control API's usage document (openapi/control-api.yaml): the account's windows, then each key's share.
    const window = (limit: number, resetsAt: string) => ({ used: 0, limit, remaining: limit, resetsAt });
    return json(res, 200, {
      accountId: ACCOUNT.accountId,
      plan: 'pro',
      limits: ACCOUNT.limits,
      minute: window(ACCOUNT.limits.perMinute, '2026-11-21T10:01:00.000Z'),
      day: window(ACCOUNT.limits.perDay, '2026-11-22T00:00:00.000Z'),
      limiterShards: 1,
      keys: [],
    }, cors);
  }
  if (path === `/prod/accounts/${ACCOUNT.accountId}/keys`) return json(res, 200, { keys: [] }, cors);
  return json(res, 404, { type: 'about:blank', title: 'Not Found', status: 404, detail: 'No such route.', code: 'not_found' }, cors);
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

beforeAll(async () => {
  const distDir = await buildDashboard();
  cognito = createServer((req, res) => void handleCognito(req, res));
  api = createServer(handleApi);
  cognitoUrl = await listen(cognito);
  apiUrl = await listen(api);
  dashboard = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/config.json') {
      return json(res, 200, {
        apiBaseUrl: `${apiUrl}/prod`,
        messagesApiUrl: 'https://api.example.com',
        auth: { kind: 'cognito', domain: cognitoUrl, clientId: CLIENT_ID, scopes: ['openid', 'email', 'profile'] },
      });
    }
    const file = join(distDir, normalize(path === '/' ? '/index.html' : path));
    readFile(file).then(
      (bytes) => {
        res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
        res.end(bytes);
      },
      () => json(res, 404, { error: 'not found' }),
    );
  });
  dashboardUrl = await listen(dashboard);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([close(dashboard), close(cognito), close(api)]);
});

describe('Cognito managed login with PKCE', () => {
  let page: Page;
  let errors: string[];

  it('signs in with the authorization code flow and PKCE, keeps the page asked for, and calls the API with the ID token', async () => {
    page = await (await newContext(browser, dashboardUrl)).newPage();
    errors = watchErrors(page);
    await page.goto('/#/usage');
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    expect(await page.getByText('Development sign-in').count()).toBe(0);
    await screenshot(page, '00-sign-in-cognito');
    await page.getByRole('button', { name: 'Sign in or create an account' }).click();

    await page.getByRole('heading', { name: 'Plan & usage', level: 1 }).waitFor();
    expect(await page.getByRole('banner').getByText(EMAIL).isVisible()).toBe(true);
    // Back on the app without the code in the address bar, on the page asked for.
    expect(page.url()).toBe(`${dashboardUrl}/#/usage`);

    expect(authorizations).toHaveLength(1);
    const [authorize] = authorizations;
    expect(authorize?.params).toMatchObject({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: `${dashboardUrl}/`,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(authorize?.params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize?.params.state).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    // The token endpoint checked S256(code_verifier) against the challenge, and the redirect URI.
    expect(tokenRequests).toEqual([{ params: expect.objectContaining({ code: authorize?.code }), ok: true }]);
    expect(apiAuthorizations.length).toBeGreaterThan(0);
    expect(apiAuthorizations.every((a) => a === `Bearer ${idToken}`)).toBe(true);

    await page.reload();
    await page.getByRole('heading', { name: 'Plan & usage', level: 1 }).waitFor();
    expect(tokenRequests).toHaveLength(1);
  });

  it('signs out of the managed login too', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
    expect(logouts).toEqual([{ client_id: CLIENT_ID, logout_uri: `${dashboardUrl}/` }]);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
  });

  it('refuses a code that comes back without the state it sent', async () => {
    await page.goto('/?code=stolen-code&state=forged');
    await page.getByText('the sign-in attempt did not match').waitFor();
    expect(tokenRequests).toHaveLength(1);
    expect(page.url()).toBe(`${dashboardUrl}/`);
    expect(errors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
    await page.context().close();
  });
});
