import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDns, type TestDnsServer } from '../support/dns-server.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';
import { buildDashboard, launchBrowser, newContext, screenshotOf, unnamedControls, watchErrors } from './support.js';

// Issue 15 "must show", through the UI: the ownership TXT record beside the ALIAS with its copy
// buttons, a live domain whose DNS drifted (dns_misconfigured: still served, until when, what was
// found, the fix) and back.
const EDGE_IPS = { A: ['198.51.100.10'], AAAA: ['2001:db8::10'] };
const TARGET = /^[a-z2-7]{26}\.edge\.platform\.example\.com$/;
const APEX = 'proof-browser.test';
const DRIFT = 'www.drift-browser.test';
const DAY = 24 * 60 * 60 * 1000;

let dns: TestDnsServer;
let platform: TestPlatform;
let browser: Browser;
let page: Page;
let errors: string[];

const card = (domain: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: domain, exact: true }) });
const waitForState = (domain: string, badge: string) => card(domain).locator('.badge', { hasText: badge }).waitFor({ timeout: 20_000 });

async function addDomain(name: string) {
  await page.getByLabel('Domain', { exact: true }).fill(name);
  await page.getByRole('button', { name: 'Add domain' }).click();
  await card(name).waitFor();
}

/** The value of the record row `row` (1-based after the header) of a records table. */
const recordValue = (table: string, row: number) =>
  page.getByRole('table', { name: table }).getByRole('row').nth(row).locator('.record-value').textContent();

/** The scheduled drift check, started as an operator would, then the list reloaded as an owner would. */
async function driftCheckAndRefresh() {
  await platform.domains.checkDrift();
  await platform.domainFlow.settle();
  await page.getByRole('button', { name: 'Refresh' }).click();
}

beforeAll(async () => {
  const distDir = await buildDashboard();
  dns = await startTestDns();
  platform = await startTestPlatform({
    dnsServers: [dns.address],
    domainFlow: { pollMs: 20, driftCheckIntervalMs: 0 },
    dashboard: { port: 0, distDir },
    demoProject: true,
  });
  if (!platform.dashboardUrl) throw new Error('the platform did not start the dashboard');
  dns.set(platform.platformHost, EDGE_IPS);
  dns.set(`*.${platform.platformHost}`, EDGE_IPS);
  browser = await launchBrowser();
  page = await (await newContext(browser, platform.dashboardUrl)).newPage();
  errors = watchErrors(page);
  await page.goto('/');
  await page.getByRole('button', { name: 'Sign in as pro@demo.local' }).click();
  await page.getByRole('link', { name: 'Projects' }).click();
  await page.getByRole('link', { name: 'Domains of Demo site' }).click();
  await page.getByRole('heading', { name: 'Demo site: domains' }).waitFor();
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await dns?.stop();
});

describe('ownership and drift in the dashboard', () => {
  it('shows an apex\'s ownership TXT record beside its ALIAS, name and value with copy buttons, and why it is needed', async () => {
    await addDomain(APEX);
    const table = page.getByRole('table', { name: `DNS records for ${APEX}` });
    const rows = table.getByRole('row');
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(1).getByRole('cell').nth(0).textContent()).toMatch(/^ALIAS\s*or ANAME$/);
    expect(await recordValue(`DNS records for ${APEX}`, 1)).toMatch(TARGET);
    const txt = rows.nth(2).getByRole('cell');
    expect((await txt.nth(0).textContent())?.trim()).toBe('TXT');
    expect(await txt.nth(1).locator('code').textContent()).toBe('_platform-verify');
    expect(await txt.nth(1).locator('.hint').textContent()).toBe(`_platform-verify.${APEX}`);
    const token = (await recordValue(`DNS records for ${APEX}`, 2)) ?? '';
    expect(token).toMatch(/^platform-verify=[a-z2-7]{26}$/);

    await table.getByRole('button', { name: 'Copy the record name _platform-verify' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe('_platform-verify');
    await table.getByRole('button', { name: `Copy the record value ${token}` }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token);
    const why = card(APEX).locator('.notice', { hasText: 'Why the TXT record: proof that the domain is yours' });
    expect(await why.textContent()).toContain('cannot be told apart from anyone else\'s by its addresses');
    expect(await card(APEX).getByText('Set these records at your DNS provider, then press Verify.', { exact: false }).isVisible()).toBe(true);
    expect(await unnamedControls(page)).toEqual([]);
    await screenshotOf(card(APEX), '13-apex-ownership-record');
  });

  it('shows a live domain whose DNS drifted as DNS misconfigured: still served, until when, what was found and the fix; then active again', async () => {
    await addDomain(DRIFT);
    const target = (await recordValue(`DNS records for ${DRIFT}`, 1)) ?? '';
    dns.set(DRIFT, { CNAME: target });
    await page.getByRole('button', { name: `Verify ${DRIFT}` }).click();
    await waitForState(DRIFT, 'Active');

    dns.set(DRIFT, { CNAME: 'elsewhere.example.net' });
    const found = platform.clock.now();
    await driftCheckAndRefresh();
    await waitForState(DRIFT, 'DNS misconfigured');
    const domain = card(DRIFT);
    const panel = domain.getByRole('region', { name: `DNS problem of ${DRIFT}` });
    expect(await panel.locator('.notice-title').textContent()).toContain(`The DNS of ${DRIFT} no longer points here`);
    const deadline = panel.locator('time').first();
    expect(await deadline.getAttribute('datetime')).toBe(new Date(found + 7 * DAY).toISOString());
    expect(await panel.textContent()).toContain('If its DNS is not fixed by then, it is detached from this project');
    expect(await panel.getByText('CNAME elsewhere.example.net', { exact: true }).isVisible()).toBe(true);
    expect(await panel.getByText(`CNAME ${target}`, { exact: true }).isVisible()).toBe(true);
    expect(await domain.getByRole('listitem').filter({ hasText: 'DNS check' }).textContent()).toContain('failed');
    expect(await domain.getByRole('listitem').filter({ hasText: 'Live' }).textContent()).toContain('done');
    expect(await domain.getByRole('status').filter({ hasText: DRIFT }).textContent()).toMatch(
      new RegExp(`^${DRIFT.replace(/\./g, '\\.')}: its DNS no longer points here\\. It is still served until .+; fix the record shown\\.$`),
    );
    expect(await domain.getByRole('button', { name: `Re-verify ${DRIFT}` }).isVisible()).toBe(true);
    await screenshotOf(domain, '14-domain-dns-misconfigured');

    dns.set(DRIFT, { CNAME: target });
    await driftCheckAndRefresh();
    await waitForState(DRIFT, 'Active');
    expect(await domain.getByRole('region', { name: `DNS problem of ${DRIFT}` }).count()).toBe(0);
  });

  it('logged no app errors', () => {
    expect(errors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
  });
});
