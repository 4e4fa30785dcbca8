import type { Browser, Locator, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';
import { deployOverHttp } from '../support/deploys.js';
import {
  buildDashboard, launchBrowser, newContext, PHONE_WIDTH, pageWidth, screenshot, unnamedControls, watchErrors,
} from './support.js';

// Issue 25: one source of account state (a plan an operator changes shows everywhere within one
// refresh, no reload), an upgrade path that goes somewhere, and the rough edges. The page's clock
// is Playwright's, started at the platform's ManualClock time and paused once the page has loaded:
// "within one refresh" is one 10-s step of it, and the countdown moves only when the test moves it.
let platform: TestPlatform;
let browser: Browser;
let dashboardUrl: string;
const pages: Page[] = [];
const errors: string[][] = [];

beforeAll(async () => {
  const distDir = await buildDashboard();
  platform = await startTestPlatform({ dashboard: { port: 0, distDir } });
  if (!platform.dashboardUrl) throw new Error('the platform did not start the dashboard');
  dashboardUrl = platform.dashboardUrl;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

afterEach(async () => {
  for (const page of pages.splice(0)) await page.context().close();
  expect(errors.splice(0).flat().filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
});

/** A new owner (a Free account of their own), signed in on a page whose clock the test holds. */
async function signIn(email: string, phone = false): Promise<{ page: Page; accountId: string }> {
  const context = await newContext(browser, dashboardUrl, phone);
  await context.clock.install({ time: new Date(platform.clock.now()) });
  const page = await context.newPage();
  errors.push(watchErrors(page));
  pages.push(page);
  await page.goto('/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Email').press('Enter');
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  await nav(page, 'Plan & usage');
  const accountId = (await page.getByRole('region', { name: /^Current plan/ }).locator('p.hint code').first().textContent()) ?? '';
  expect(accountId).toMatch(/^acct_/);
  return { page, accountId };
}

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

/** From here the page's time moves only when the test moves it. */
async function pause(page: Page): Promise<void> {
  await page.clock.pauseAt(new Date(Number(await page.evaluate('Date.now()')) + 1_000));
}

/**
 * One refresh of the page's queries (query-client.ts: every 10 s while visible), then until
 * `shown` is visible: TanStack Query hands an answer to the components on a timer of its own, so
 * the clock moves on in 100-ms steps, and the test checks that the account was read only once.
 */
async function oneRefresh(page: Page, shown: Locator): Promise<void> {
  let accountReads = 0;
  const count = (request: Request) => {
    if (request.method() === 'GET' && /\/api\/accounts\/[^/]+$/.test(new URL(request.url()).pathname)) accountReads++;
  };
  page.on('request', count);
  await page.clock.runFor(10_000);
  await untilShown(page, shown);
  page.off('request', count);
  expect(accountReads).toBe(1);
}

/** With the clock paused, a query's answer reaches the components only as the clock moves: 100-ms steps until `shown`. */
async function untilShown(page: Page, shown: Locator): Promise<void> {
  await expect.poll(async () => {
    await page.clock.runFor(100);
    return shown.isVisible();
  }, { timeout: 10_000 }).toBe(true);
}

/** The platform's control port, as an operator (no authentication locally). */
async function operator(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${platform.controlUrl}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** A deployed project of the account (setup, not a dashboard feature here). */
async function deployedProject(accountId: string, slug: string): Promise<string> {
  const created = await operator('POST', `/accounts/${accountId}/projects`, { slug, name: slug });
  expect(created.status).toBe(201);
  const { projectId } = (await created.json()) as { projectId: string };
  await deployOverHttp(platform.controlUrl, `/accounts/${accountId}/projects/${projectId}`, `<h1>${slug}</h1>`);
  return projectId;
}

/** The operator CLI in process, against the platform's control port. */
async function cli(...argv: string[]): Promise<string> {
  const { code, stdout, stderr } = await runCli([...argv, '--url', platform.controlUrl]);
  expect(code, stderr).toBe(0);
  return stdout;
}

/** Every place that shows the plan, read without a reload (hash navigation keeps the app). */
async function expectPlanEverywhere(page: Page, plan: string, projectId: string): Promise<void> {
  await page.getByRole('banner').getByText(`${plan} plan`, { exact: true }).waitFor();
  await nav(page, 'Overview');
  await page.getByRole('heading', { name: `${plan} plan`, level: 2 }).waitFor();
  await nav(page, 'Plan & usage');
  await page.getByRole('heading', { name: `Current plan: ${plan}` }).waitFor();
  await page.evaluate(`location.hash = '#/projects/${projectId}/domains'`);
}

describe('one source of account state', () => {
  it('shows a plan an operator changes in the header, the plan cards and the Domains gate within one refresh, without a reload', async () => {
    const { page, accountId } = await signIn('plan-change@example.test');
    const projectId = await deployedProject(accountId, 'plan-change');
    await page.evaluate(`location.hash = '#/projects/${projectId}/domains'`);
    await page.getByRole('heading', { name: 'Custom domains need the Pro plan or above' }).waitFor();
    expect(await page.getByRole('banner').getByText('Free plan', { exact: true }).isVisible()).toBe(true);
    await pause(page);
    // No reload from here on: the page's own navigation counts how many documents it loaded.
    const loads = await page.evaluate('performance.getEntriesByType("navigation").length');

    expect((await operator('PUT', `/accounts/${accountId}/plan`, { plan: 'pro' })).status).toBe(200);
    // The header says Pro, the Domains page opens its form; then every other page, from the same cache.
    await oneRefresh(page, page.getByRole('banner').getByText('Pro plan', { exact: true }));
    await page.getByLabel('Domain', { exact: true }).waitFor();
    expect(await page.getByRole('heading', { name: 'Custom domains need the Pro plan or above' }).count()).toBe(0);
    await nav(page, 'Overview');
    await page.getByRole('heading', { name: 'Pro plan', level: 2 }).waitFor();
    await nav(page, 'Plan & usage');
    await page.getByRole('heading', { name: 'Current plan: Pro' }).waitFor();
    expect(await page.getByText('Custom domains need Pro or above.').count()).toBe(0);
    expect(await page.evaluate('performance.getEntriesByType("navigation").length')).toBe(loads);
    expect(await page.evaluate('location.hash')).toBe('#/usage');
  });
});

describe('the upgrade path', () => {
  it('records an upgrade request shown as pending until the CLI\'s plans set approves it, then Pro everywhere', async () => {
    const { page, accountId } = await signIn('upgrade@example.test');
    const projectId = await deployedProject(accountId, 'upgrade-site');
    await page.getByRole('link', { name: 'Compare plans' }).click();
    await page.getByRole('heading', { name: 'Plans', level: 1 }).waitFor();
    expect(await unnamedControls(page)).toEqual([]);
    await screenshot(page, '19-plans');
    await pause(page);

    await page.getByRole('button', { name: 'Request upgrade to Pro' }).click();
    const pending = page.getByRole('status').filter({ hasText: 'Upgrade to Pro requested' });
    await pending.waitFor();
    expect(await pending.textContent()).toContain('pending until the platform team acts on it');
    // One request at a time; the card says which plan was asked for.
    expect(await page.getByRole('button', { name: 'Request upgrade to Business' }).isDisabled()).toBe(true);
    await screenshot(page, '20-upgrade-pending');
    // Still pending after a refresh (the server has it), and on the usage page too.
    await oneRefresh(page, pending);
    await nav(page, 'Plan & usage');
    await page.getByText('Upgrade to Pro requested').waitFor();
    const account = (await (await operator('GET', `/accounts/${accountId}`)).json()) as { upgradeRequest?: { plan: string; status: string } };
    expect(account.upgradeRequest).toMatchObject({ plan: 'pro', status: 'pending' });

    // The operator approves it with the existing command; the next refresh shows Pro everywhere.
    expect(await cli('plans', 'set', '--account', accountId, '--plan', 'pro')).toMatch(/^plan +pro$/m);
    await oneRefresh(page, page.getByRole('heading', { name: 'Current plan: Pro' }));
    expect(await page.getByText('Upgrade to Pro requested').count()).toBe(0);
    await expectPlanEverywhere(page, 'Pro', projectId);
    // The project's Domains page reads its domains for the first time here.
    await untilShown(page, page.getByLabel('Domain', { exact: true }));
  });

  it('fits a phone: the plan cards stack, nothing scrolls sideways, before and after a request', async () => {
    const { page } = await signIn('plans-phone@example.test', true);
    await page.getByRole('link', { name: 'Compare plans' }).click();
    await page.getByRole('heading', { name: 'Plans', level: 1 }).waitFor();
    const width = await pageWidth(page);
    expect(width.width, width.overflowing.join('\n')).toBe(PHONE_WIDTH);
    await screenshot(page, '21-phone-plans');
    await page.getByRole('button', { name: 'Request upgrade to Business' }).click();
    await page.getByRole('status').filter({ hasText: 'Upgrade to Business requested' }).waitFor();
    expect((await pageWidth(page)).width).toBe(PHONE_WIDTH);
    await screenshot(page, '21b-phone-upgrade-pending');
  });
});

describe('rough edges', () => {
  it('suggests the slug from the name, and shows the slug\'s error at the slug field (a taken slug too)', async () => {
    const { page, accountId } = await signIn('slug@example.test');
    await deployedProject(accountId, 'taken-slug');
    await nav(page, 'Projects');
    await page.getByLabel('Name (optional)').fill('My Great Site');
    expect(await page.locator('#project-slug').inputValue()).toBe('my-great-site');

    const slugField = page.locator('.field', { has: page.locator('#project-slug') });
    await page.locator('#project-slug').fill('-bad-');
    await page.getByLabel('Name (optional)').focus();
    await slugField.getByRole('alert').filter({ hasText: /\S/ }).waitFor();
    expect(await page.locator('#project-slug').getAttribute('aria-invalid')).toBe('true');

    await page.locator('#project-slug').fill('taken-slug');
    await page.getByRole('button', { name: 'Create project' }).click();
    await slugField.getByRole('alert').filter({ hasText: /taken|in use|already/i }).waitFor();
    // Right under the input, not below the button.
    const input = await page.locator('#project-slug').boundingBox();
    const alert = await slugField.getByRole('alert').boundingBox();
    const button = await page.getByRole('button', { name: 'Create project' }).boundingBox();
    expect(alert && input && alert.y - (input.y + input.height)).toBeLessThan(40);
    expect(alert && button && alert.y).toBeLessThan(button?.y ?? 0);
    await screenshot(page, '22-slug-error-at-field');
  });

  for (const phone of [false, true]) {
    it(`keeps Status and Revoke on the card with a long key name${phone ? ' (phone)' : ''}`, async () => {
      const { page } = await signIn(`long-key${phone ? '-phone' : ''}@example.test`, phone);
      await nav(page, 'API keys');
      const name = 'a'.repeat(100);
      await page.getByLabel('Key name').fill(name);
      await page.getByRole('button', { name: 'Generate key' }).click();
      await page.getByRole('button', { name: 'I have stored the key' }).click();
      const card = page.getByRole('region', { name: 'Your keys' });
      const revoke = card.getByRole('button', { name: new RegExp(`^Revoke ${name}`) });
      await revoke.waitFor();
      const box = await card.boundingBox();
      for (const inner of [revoke, card.locator('.badge', { hasText: 'Active' })]) {
        const b = await inner.boundingBox();
        expect(b && box && b.x + b.width).toBeLessThanOrEqual((box?.x ?? 0) + (box?.width ?? 0));
      }
      if (phone) expect((await pageWidth(page)).width).toBe(PHONE_WIDTH);
    });
  }

  it('counts "Resets in" down each second from the reset time, not in 10-s jumps', async () => {
    const { page } = await signIn('countdown@example.test');
    const resets = page.locator('.usage-bar').first().locator('p.hint time');
    await resets.waitFor();
    await pause(page);
    const seconds = async () => Number(/^in (\d+) s$/.exec((await resets.textContent()) ?? '')?.[1]);
    const first = await seconds();
    expect(first).toBeGreaterThan(5);
    for (let i = 1; i <= 3; i++) {
      await page.clock.runFor(1_000);
      await expect.poll(seconds).toBe(first - i);
    }
  });
});
