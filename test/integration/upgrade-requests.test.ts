import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import {
  assertResponseMatchesSpec,
  createResponseValidator,
  readResponse,
  type ResponseValidator,
} from '../support/openapi.js';
import { CONTROL_API_OPENAPI_PATH } from '../support/openapi-document.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// Upgrade requests on the local platform: an owner asks through the dashboard's API (the Lambda
// handler with Cognito-shaped claims), the operations topic's stand-in records the message, the
// operator lists the requests with the CLI and approves one with `plans set`. Every answer of the
// API is checked against openapi/control-api.yaml.

type Body = Record<string, unknown>;

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

async function api(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${dashboard}/api${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const observed = await readResponse(method, path, res);
  assertResponseMatchesSpec(observed, validator);
  return { status: res.status, body: (observed.body ?? {}) as Body };
}

/** The operator CLI in process, against the local control port. */
const cli = (...argv: string[]) => runCli([...argv, '--url', platform.controlUrl]);

const upgradeMessages = () => platform.operationsTopic.messages.filter((m) => m.message.kind === 'upgrade_request');

beforeAll(async () => {
  validator = createResponseValidator({ specPath: CONTROL_API_OPENAPI_PATH });
  const distDir = mkdtempSync(join(tmpdir(), 'dashboard-dist-'));
  writeFileSync(join(distDir, 'index.html'), '<!doctype html><title>Dashboard</title>');
  mkdirSync(join(distDir, 'assets'));
  platform = await startTestPlatform({ dashboard: { port: 0, distDir } });
  dashboard = platform.dashboardUrl as string;
});

afterAll(async () => {
  await platform?.stop();
});

describe('upgrade requests', () => {
  it('an owner requests a higher plan; the operators hear of it, list it and approve it with plans set', async () => {
    const owner = await signIn('free@demo.local');
    const accountId = 'acct_demo_free';
    expect((await api(owner, 'GET', '/me')).body.account).toMatchObject({ accountId, plan: 'free', upgradeRequest: null });

    const asked = await api(owner, 'POST', `/accounts/${accountId}/upgrade-request`, { plan: 'pro' });
    expect(asked.status).toBe(201);
    const requestedAt = platform.clock.now();
    expect(asked.body).toEqual({ upgradeRequest: { plan: 'pro', status: 'pending', requestedAt: new Date(requestedAt).toISOString() } });
    expect((await api(owner, 'GET', `/accounts/${accountId}`)).body.upgradeRequest).toEqual(asked.body.upgradeRequest);
    expect(upgradeMessages()).toEqual([
      expect.objectContaining({
        subject: `Upgrade request: ${accountId} asks for pro`,
        message: expect.objectContaining({ accountId, currentPlan: 'free', plan: 'pro', requestedBy: 'free@demo.local' }),
      }),
    ]);

    // The same plan again answers the pending request, without telling the operators twice.
    platform.clock.advance(1_000);
    expect((await api(owner, 'POST', `/accounts/${accountId}/upgrade-request`, { plan: 'pro' })).body).toEqual(asked.body);
    expect(upgradeMessages()).toHaveLength(1);
    // Another higher plan replaces it, and the operators hear of the change.
    const business = await api(owner, 'POST', `/accounts/${accountId}/upgrade-request`, { plan: 'business' });
    expect(business.body.upgradeRequest).toMatchObject({ plan: 'business', status: 'pending' });
    expect(upgradeMessages().map((m) => m.message.plan)).toEqual(['pro', 'business']);

    const listed = await cli('plans', 'requests', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { upgradeRequests: Body[] }).upgradeRequests).toEqual([
      expect.objectContaining({ accountId, accountName: expect.any(String), currentPlan: 'free', plan: 'business', status: 'pending', requestedBy: 'free@demo.local' }),
    ]);
    const human = await cli('plans', 'requests');
    expect(human.stdout).toContain(`plans set --account ${accountId} --plan business`);

    const approved = await cli('plans', 'set', '--account', accountId, '--plan', 'business');
    expect(approved.code, approved.stderr).toBe(0);
    expect((await api(owner, 'GET', '/me')).body.account).toMatchObject({ plan: 'business', upgradeRequest: null });
    expect(JSON.parse((await cli('plans', 'requests', '--json')).stdout)).toEqual({ upgradeRequests: [] });
    expect((await cli('plans', 'requests')).stdout).toContain('No pending upgrade requests.');
  });

  it('refuses a plan that is not higher, an unknown plan, another owner\'s account, and operators', async () => {
    const owner = await signIn('pro@demo.local');
    const same = await api(owner, 'POST', '/accounts/acct_demo_pro/upgrade-request', { plan: 'pro' });
    expect({ status: same.status, code: same.body.code }).toEqual({ status: 409, code: 'plan_not_higher' });
    const lower = await api(owner, 'POST', '/accounts/acct_demo_pro/upgrade-request', { plan: 'free' });
    expect({ status: lower.status, code: lower.body.code }).toEqual({ status: 409, code: 'plan_not_higher' });
    const unknown = await api(owner, 'POST', '/accounts/acct_demo_pro/upgrade-request', { plan: 'platinum' });
    expect(unknown.body).toMatchObject({ status: 400, code: 'invalid_request', errors: [{ field: 'plan' }] });
    const other = await api(owner, 'POST', '/accounts/acct_demo_enterprise/upgrade-request', { plan: 'enterprise' });
    expect({ status: other.status, code: other.body.code }).toEqual({ status: 404, code: 'account_not_found' });
    expect((await api(owner, 'GET', '/upgrade-requests')).body).toMatchObject({ status: 403, code: 'forbidden' });
    const before = upgradeMessages().length;
    const operator = await fetch(`${platform.controlUrl}/accounts/acct_demo_pro/upgrade-request`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ plan: 'business' }),
    });
    expect(operator.status).toBe(403);
    expect(upgradeMessages()).toHaveLength(before);
    expect((await api(owner, 'GET', '/me')).body.account).toMatchObject({ plan: 'pro', upgradeRequest: null });
  });
});
