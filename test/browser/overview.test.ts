import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SLUG_RULE } from '../../lambda/projects/slug.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';
import {
  buildDashboard, http, launchBrowser, newContext, PHONE_WIDTH, pageWidth, screenshot, sendMessage, unnamedControls,
  watchErrors,
} from './support.js';

// Issue 17 items 1, 2 and 5 through the UI: the overview and its steps ticking with a key made in
// the UI, a real request and a real deploy; Banned/Revoked/Active on the keys page (the ban by
// flooding the Messages API, as an owner's client would); notices that clear; sign-out forgetting
// the deep link; the slug refused in the browser with the server's own sentence.
let platform: TestPlatform;
let browser: Browser;
let work: string;
const pages: Page[] = [];
const errors: string[][] = [];

async function open(phone = false): Promise<Page> {
  const context = await newContext(browser, platform.dashboardUrl ?? '', phone);
  const page = await context.newPage();
  errors.push(watchErrors(page));
  pages.push(page);
  return page;
}

async function signInAs(page: Page, email: string) {
  await page.goto('/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Email').press('Enter');
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
}

const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
const step = (page: Page, title: string) => page.getByRole('listitem', { name: new RegExp(`^${title}`) });

async function generateKey(page: Page, name: string): Promise<string> {
  await page.getByLabel('Key name').fill(name);
  await page.getByRole('button', { name: 'Generate key' }).click();
  const secret = await page.getByRole('textbox', { name: 'Secret key' }).inputValue();
  await page.getByRole('button', { name: 'I have stored the key' }).click();
  return secret;
}

beforeAll(async () => {
  const distDir = await buildDashboard();
  platform = await startTestPlatform({ dashboard: { port: 0, distDir } });
  browser = await launchBrowser();
  work = mkdtempSync(join(tmpdir(), 'overview-test-'));
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

afterEach(async () => {
  for (const page of pages.splice(0)) await page.context().close();
  // Chromium logs every 4xx answer of fetch as a console error: expected answers, not app errors.
  expect(errors.splice(0).flat().filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
});

describe('the overview', () => {
  it('is the first screen, and its three steps tick: a key made in the UI, a real request, a real deploy', async () => {
    const page = await open();
    await signInAs(page, 'starter@example.test');
    expect(await page.getByRole('link', { name: 'Overview', exact: true }).getAttribute('aria-current')).toBe('page');
    const api = page.getByRole('region', { name: 'Messages API' });
    expect(await api.getByText(platform.baseUrl, { exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole('heading', { name: 'Free plan' }).isVisible()).toBe(true);
    expect(await page.getByRole('progressbar', { name: 'This minute' }).getAttribute('aria-valuenow')).toBe('0');
    for (const title of ['Create an API key', 'Send a test request', 'Deploy a site']) {
      expect(await step(page, title).getByText('To do').isVisible()).toBe(true);
    }
    // The single send and the batch, side by side, on this platform's Messages API.
    const curls = (await page.locator('.curl pre').allTextContents()).map((c) => c.replace(/\\\n\s*/g, ''));
    expect(curls).toEqual([
      `curl -X POST ${platform.baseUrl}/messages -H "Authorization: Bearer $API_KEY" -H "Content-Type: application/json" -d '{"message": "Hello"}'`,
      `curl -X POST ${platform.baseUrl}/messages/batch -H "Authorization: Bearer $API_KEY" -H "Content-Type: application/json" ` +
      '-d \'{"messages": [{"message": "Hello"}, {"message": "World"}]}\'',
    ]);
    await page.getByRole('button', { name: 'Copy the curl command: one message' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(curls[0]);
    // The docs it links are served with the app.
    const docsHref = await page.getByRole('link', { name: 'Messages API reference' }).getAttribute('href');
    const docs = await http(new URL(docsHref ?? '', `${platform.dashboardUrl}/`).href);
    expect(docs.status).toBe(200);
    expect(docs.body).toMatch(/^openapi: 3\.1/m);
    expect(await unnamedControls(page)).toEqual([]);
    await screenshot(page, '30-overview-new-owner');

    // 1. A key, generated in the UI.
    await step(page, 'Create an API key').getByRole('link', { name: 'Generate a key' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    const secret = await generateKey(page, 'first');
    await nav(page, 'Overview');
    await step(page, 'Create an API key').getByText('Done').waitFor();
    expect(await step(page, 'Send a test request').getByText('To do').isVisible()).toBe(true);

    // 2. A real request to the local Messages API: the page sees it on its own (polling).
    const sent = await sendMessage(platform.baseUrl, secret, 'first message');
    expect(sent.status, sent.body).toBe(202);
    await step(page, 'Send a test request').getByText('First message received').waitFor({ timeout: 15_000 });
    expect(await step(page, 'Send a test request').getByText('Done').isVisible()).toBe(true);

    // 3. A project created and deployed in the UI.
    await nav(page, 'Projects');
    const form = page.getByRole('region', { name: 'New project' });
    await form.getByLabel('Slug').fill('starter-site');
    await form.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'starter-site: settings' }).waitFor();
    const site = join(work, 'site');
    mkdirSync(site, { recursive: true });
    writeFileSync(join(site, 'index.html'), '<!doctype html><title>Starter</title><h1>Hello from starter-site</h1>');
    const deploy = page.getByRole('group', { name: 'Deploy a new version' });
    await deploy.getByLabel('Choose a folder').setInputFiles(site);
    await deploy.getByRole('button', { name: 'Deploy', exact: true }).click();
    await deploy.getByText('Deploy succeeded: your site is live').waitFor();
    await nav(page, 'Overview');
    const third = step(page, 'Deploy a site');
    await third.getByText('Done').waitFor();
    const host = `starter-site.${platform.config.platform.domain}`;
    expect(await third.getByRole('link', { name: host, exact: true }).getAttribute('href')).toBe(`https://${host}/`);

    // The local ways in: a loopback name Chromium resolves itself, and curl with a Host header.
    const edgePort = new URL(platform.edgeUrl).port;
    const local = third.getByRole('link', { name: `http://${host}.localhost:${edgePort}/` });
    expect(await local.getAttribute('href')).toBe(`http://${host}.localhost:${edgePort}/`);
    const curl = `curl -H 'Host: ${host}' ${platform.edgeUrl}/`;
    expect(await third.getByText(curl, { exact: true }).isVisible()).toBe(true);
    expect((await http(`${platform.edgeUrl}/`, { headers: { Host: host } })).body).toContain('Hello from starter-site');
    const visit = await page.context().newPage();
    await visit.goto(`http://${host}.localhost:${edgePort}/`);
    expect(await visit.locator('h1').textContent()).toBe('Hello from starter-site');
    await visit.close();
    await screenshot(page, '31-overview-all-done');

    // On a phone: the same overview, nothing wider than the screen.
    const phone = await open(true);
    await signInAs(phone, 'starter@example.test');
    await step(phone, 'Deploy a site').getByText('Done').waitFor();
    const width = await pageWidth(phone);
    expect(width.width, width.overflowing.join('\n')).toBe(PHONE_WIDTH);
    await screenshot(phone, '32-phone-overview');
  });
});

describe('the keys page', () => {
  it('shows Banned with when the ban ends, Revoked, and Active; a revoke keeps "Last used" and says so on screen', async () => {
    const page = await open();
    await signInAs(page, 'keys-status@example.test');
    await nav(page, 'API keys');
    const busy = await generateKey(page, 'busy');
    const quiet = await generateKey(page, 'quiet');
    expect((await sendMessage(platform.baseUrl, quiet, 'one')).status).toBe(202);
    // Free: 60 a minute for the account (quiet took 1); more than 30 refusals in a minute ban the key.
    const statuses: number[] = [];
    for (let i = 0; i < 59 + platform.config.plans.free.ban.threshold + 1; i++) {
      statuses.push((await sendMessage(platform.baseUrl, busy, `m${i}`)).status);
    }
    expect(statuses.filter((s) => s === 202)).toHaveLength(59);
    expect((await sendMessage(platform.baseUrl, busy, 'banned?')).body).toContain('key_banned');

    await page.getByRole('button', { name: 'Refresh' }).click();
    const row = (name: string) => page.getByRole('row', { name: new RegExp(`^${name}`) });
    await row('busy').getByText('Banned').waitFor();
    expect(await row('busy').getByText(/^Rate-limit ban: it kept sending after 429 answers\. Refused until /).isVisible()).toBe(true);
    expect(await row('quiet').getByText('Active').isVisible()).toBe(true);
    const lastUsed = await row('quiet').locator('td[data-label="Last used"]').textContent();
    expect(lastUsed).not.toBe('Never');

    await page.getByRole('button', { name: /^Revoke quiet/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    const confirmation = page.getByText(/Key quiet \(sk_live_.*\) is revoked\. Requests with it get 401 from now on\./);
    await confirmation.waitFor();
    expect(await confirmation.isVisible()).toBe(true);
    expect(await row('quiet').getByText('Revoked').isVisible()).toBe(true);
    expect(await row('quiet').locator('td[data-label="Last used"]').textContent()).toBe(lastUsed);
    await screenshot(page, '33-keys-banned-revoked');

    // Starting another action clears that notice; the new error stands alone.
    await page.getByRole('button', { name: 'Generate key' }).click();
    await page.getByText('Give the key a name').waitFor();
    expect(await confirmation.count()).toBe(0);
    expect(await page.locator('.notice, .action-error:not(:empty)').count()).toBe(1);
  });
});

describe('signing out', () => {
  it('forgets the deep link: the next owner lands on the overview', async () => {
    // Setup (not what is tested): a project of the Pro demo account to open by its deep link.
    const created = await fetch(`${platform.controlUrl}/accounts/${platform.demoAccounts.pro.accountId}/projects`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ slug: 'deep-link', name: 'Deep link' }),
    });
    expect(created.status).toBe(201);
    const page = await open();
    await signInAs(page, 'pro@demo.local');
    await nav(page, 'Projects');
    await page.getByRole('link', { name: 'Settings of Deep link' }).click();
    await page.getByRole('heading', { name: 'Deep link: settings' }).waitFor();
    expect(new URL(page.url()).hash).toMatch(/^#\/projects\/prj_/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    const notice = page.getByText('You are signed out.');
    await notice.waitFor();
    // Information, not a warning.
    expect(await page.locator('.notice-info').filter({ hasText: 'You are signed out.' }).count()).toBe(1);
    expect(new URL(page.url()).hash).toBe('');
    await page.getByLabel('Email').fill('next.owner@example.test');
    await page.getByLabel('Email').press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await page.getByText(/No project/).count()).toBe(0);
  });
});

describe('the New project form', () => {
  it('refuses a slug the server would refuse, with the server\'s own sentence, before any request', async () => {
    const page = await open();
    await signInAs(page, 'slugs@example.test');
    await nav(page, 'Projects');
    const requests: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/projects')) requests.push(r.url());
    });
    const form = page.getByRole('region', { name: 'New project' });
    const slug = form.getByLabel('Slug');
    await slug.fill('UX_Test');
    await slug.blur();
    const alert = form.getByRole('alert');
    await alert.getByText(SLUG_RULE).waitFor();
    expect(await slug.getAttribute('aria-invalid')).toBe('true');
    // The preview shows no URL the server would refuse.
    expect(await form.getByText('Default URL:').textContent()).not.toContain('ux_test');
    await form.getByRole('button', { name: 'Create project' }).click();
    expect(await alert.textContent()).toContain(SLUG_RULE);
    expect(requests).toEqual([]);
    // The same sentence the server gives for it.
    const server = await fetch(`${platform.controlUrl}/accounts/${platform.demoAccounts.free.accountId}/projects`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ slug: 'UX_Test' }),
    });
    expect(server.status).toBe(400);
    expect(((await server.json()) as { detail: string }).detail).toBe(SLUG_RULE);
    await slug.fill('www');
    await alert.getByText('The slug www is reserved by the platform.').waitFor();
    await slug.fill('ux-test');
    expect(await form.locator('.action-error').textContent()).toBe('');
    expect(await slug.getAttribute('aria-invalid')).toBeNull();
    expect(await form.getByText('Default URL:').textContent()).toContain(`https://ux-test.${platform.config.platform.domain}`);
  });
});
