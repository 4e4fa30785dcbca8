import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDns, type TestDnsServer } from '../support/dns-server.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';
import {
  buildDashboard, http, launchBrowser, newContext, PHONE_WIDTH, pageWidth, screenshot, screenshotOf, unnamedControls,
  watchErrors,
} from './support.js';

// Issue 5 "must show", through the UI only, on the Pro demo account and its deployed demo project:
// add a domain, read the CNAME it displays, set it in a test DNS server, Verify, see it active;
// an apex with ALIAS; a redirect followed on the local edge; the failure explanation and the
// certificate diagnosis; remove from the menu and see the edge refuse the domain.
const EDGE_IPS = { A: ['198.51.100.10'], AAAA: ['2001:db8::10'] };
const WWW = 'www.shop-browser.test';
const APEX = 'shop-browser.test';
const CAA_WWW = 'www.caa-browser.test';
/** A domain's own target, under the platform host. */
const TARGET = /^[a-z2-7]{26}\.edge\.platform\.example\.com$/;

let dns: TestDnsServer;
let platform: TestPlatform;
let browser: Browser;
let page: Page;
let errors: string[];
let cname: string;

/** The local edge, with a Host header (fetch cannot set Host; node:http can). */
const edge = (host: string, path = '/') => http(`${platform.edgeUrl}${path}`, { headers: { Host: host } });

/** The card of a custom domain (a list item named by its heading). */
const card = (domain: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: domain, exact: true }) });

async function waitForState(domain: string, badge: string, timeout = 20_000) {
  await card(domain).locator('.badge', { hasText: badge }).waitFor({ timeout });
}

async function addDomain(input: string, normalised: string) {
  await page.getByLabel('Domain', { exact: true }).fill(input);
  await page.getByRole('button', { name: 'Add domain' }).click();
  await page.getByRole('status').filter({ hasText: `Added ${normalised}` }).waitFor();
  await card(normalised).waitFor();
}

async function removeViaMenu(domain: string) {
  await page.getByRole('button', { name: `Actions for ${domain}` }).click();
  await page.getByRole('menuitem', { name: 'Remove' }).click();
  const dialog = page.getByRole('dialog', { name: `Remove ${domain}?` });
  await dialog.waitFor();
  return dialog;
}

beforeAll(async () => {
  const distDir = await buildDashboard();
  dns = await startTestDns();
  platform = await startTestPlatform({
    dnsServers: [dns.address],
    domainFlow: { pollMs: 20 },
    dashboard: { port: 0, distDir },
    demoProject: true,
  });
  if (!platform.dashboardUrl) throw new Error('the platform did not start the dashboard');
  dns.set(platform.platformHost, EDGE_IPS);
  // The platform zone's wildcard: every domain's own target resolves to the edge.
  dns.set(`*.${platform.platformHost}`, EDGE_IPS);
  browser = await launchBrowser();
  page = await (await newContext(browser, platform.dashboardUrl)).newPage();
  errors = watchErrors(page);
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await dns?.stop();
});

describe('custom domains on a Pro account', () => {
  it('opens Project settings → Domains of the deployed demo project', async () => {
    await page.goto('/');
    await page.getByRole('button', { name: 'Sign in as pro@demo.local' }).click();
    await page.getByRole('link', { name: 'Projects' }).click();
    const project = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Demo site' }) });
    await project.waitFor();
    expect(await project.getByText('Deployed').isVisible()).toBe(true);
    expect(await project.getByRole('link', { name: 'demo.platform.example.com', exact: true }).getAttribute('href'))
      .toBe('https://demo.platform.example.com/');
    await screenshot(page, '05-projects');
    await project.getByRole('link', { name: 'Settings of Demo site' }).click();
    await page.getByRole('heading', { name: 'Demo site: settings' }).waitFor();
    await page.getByRole('navigation', { name: 'Project settings' }).getByRole('link', { name: 'Domains' }).click();
    await page.getByRole('heading', { name: 'Demo site: domains' }).waitFor();
    await page.getByText('No custom domains yet.').waitFor(); // the list loads after the project
  });

  it('adds a subdomain: shows the normalised name and the exact CNAME record (TTL 3600) with copy buttons', async () => {
    await addDomain('  WWW.Shop-Browser.TEST. ', WWW);
    expect(await page.getByText(`you entered “WWW.Shop-Browser.TEST.”; this is its normalised name`).isVisible()).toBe(true);
    await waitForState(WWW, 'Waiting for DNS');

    const table = page.getByRole('table', { name: `DNS records for ${WWW}` });
    const cells = table.getByRole('row').nth(1).getByRole('cell');
    expect((await cells.nth(0).textContent())?.trim()).toBe('CNAME');
    expect(await cells.nth(1).locator('code').textContent()).toBe('www');
    cname = (await cells.nth(2).locator('code').textContent()) ?? '';
    expect(cname).toMatch(TARGET);
    expect(await cells.nth(3).locator('code').textContent()).toBe('3600');

    await table.getByRole('button', { name: `Copy the record value ${cname}` }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(cname);
    expect(await unnamedControls(page)).toEqual([]);
    await screenshot(page, '06-domains-records');
  });

  it('explains a failed DNS check with what was observed, then goes live after the fix and Re-verify', async () => {
    // An A record where the CNAME should be.
    dns.set(WWW, { A: ['203.0.113.7'] });
    await page.getByRole('button', { name: `Verify ${WWW}` }).click();
    await waitForState(WWW, 'DNS check failed');
    const domain = card(WWW);
    expect(await domain.getByRole('alert').filter({ hasText: 'Another record is in the way' }).isVisible()).toBe(true);
    expect(await domain.getByText('A 203.0.113.7', { exact: true }).isVisible()).toBe(true);
    expect(await domain.getByText(`CNAME ${cname}`, { exact: true }).isVisible()).toBe(true);
    expect(await domain.getByRole('listitem').filter({ hasText: 'DNS check' }).textContent()).toContain('failed');
    await screenshot(page, '07-domain-dns-failed');
    await screenshotOf(domain, '07b-domain-dns-failed-card');

    // The record the dashboard displayed, set as shown.
    dns.set(WWW, { CNAME: cname });
    await page.getByRole('button', { name: `Re-verify ${WWW}` }).click();
    await waitForState(WWW, 'Active');
    expect(await domain.getByRole('status').filter({ hasText: WWW }).textContent()).toBe(`${WWW} is live over HTTPS.`);
    expect(await domain.getByRole('listitem').filter({ hasText: 'Live' }).textContent()).toContain('done');
    expect(await domain.getByRole('link', { name: `https://${WWW}` }).isVisible()).toBe(true);
    // The live card's URL works where it is shown (issue 25): on the local platform, beside it, the
    // .localhost link and the curl command with a Host header, as for the default URL (PlatformUrl).
    const edgePort = new URL(platform.edgeUrl).port;
    expect(await domain.getByRole('link', { name: `http://${WWW}.localhost:${edgePort}/` }).getAttribute('href'))
      .toBe(`http://${WWW}.localhost:${edgePort}/`);
    expect(await domain.getByText(`curl -H 'Host: ${WWW}' ${platform.edgeUrl}/`, { exact: true }).isVisible()).toBe(true);

    const served = await edge(WWW);
    expect(served.status).toBe(200);
    expect(served.body).toContain('Demo site');
  });

  it('adds an apex (keyboard only) with an ALIAS/ANAME record and the provider caveat, beside its ownership TXT record, and verifies it', async () => {
    await page.getByLabel('Domain', { exact: true }).focus();
    await page.keyboard.type(APEX);
    await page.keyboard.press('Enter');
    await card(APEX).waitFor();
    const table = page.getByRole('table', { name: `DNS records for ${APEX}` });
    const cells = table.getByRole('row').nth(1).getByRole('cell');
    expect(await cells.nth(0).textContent()).toMatch(/^ALIAS\s*or ANAME$/);
    expect(await cells.nth(1).locator('code').textContent()).toBe('@');
    const alias = (await cells.nth(2).locator('code').textContent()) ?? '';
    expect(alias).toMatch(TARGET);
    expect(alias).not.toBe(cname);
    expect(await card(APEX).getByText('Not every DNS provider supports ALIAS or ANAME records').isVisible()).toBe(true);
    const txt = table.getByRole('row').nth(2).getByRole('cell');
    expect((await txt.nth(0).textContent())?.trim()).toBe('TXT');
    expect(await txt.nth(1).locator('code').textContent()).toBe('_platform-verify');
    const token = (await txt.nth(2).locator('code').textContent()) ?? '';
    expect(token).toMatch(/^platform-verify=[a-z2-7]{26}$/);

    // ALIAS/ANAME flattening: the apex answers with its target's addresses; that alone proves nothing.
    dns.set(APEX, EDGE_IPS);
    await page.getByRole('button', { name: `Verify ${APEX}` }).click();
    await waitForState(APEX, 'DNS check failed');
    expect(await card(APEX).getByRole('alert').filter({ hasText: 'The ownership TXT record is missing' }).isVisible()).toBe(true);
    expect(await card(APEX).getByText(`TXT _platform-verify.${APEX} "${token}"`, { exact: true }).isVisible()).toBe(true);
    dns.set(`_platform-verify.${APEX}`, { TXT: [token] });
    await page.getByRole('button', { name: `Re-verify ${APEX}` }).click();
    await waitForState(APEX, 'Active');
  });

  it('adds a redirect (301 by default) that the local edge follows, and sets the primary domain by keyboard', async () => {
    const status = page.getByLabel('Status', { exact: true });
    expect(await status.inputValue()).toBe('301');
    await page.getByLabel('From', { exact: true }).selectOption(APEX);
    await page.getByLabel('To', { exact: true }).selectOption(WWW);
    await page.getByRole('button', { name: 'Add redirect' }).click();
    await page.getByText(`${APEX} now redirects to ${WWW} (301).`).waitFor();
    expect(await page.getByRole('row', { name: new RegExp(`${APEX}.*${WWW}`) }).textContent()).toContain('301 Moved Permanently');
    expect(await card(APEX).getByText(`Redirects to ${WWW} (301)`).isVisible()).toBe(true);

    const redirected = await edge(APEX, '/docs/page?lang=en');
    expect(redirected.status).toBe(301);
    expect(redirected.headers.location).toBe(`https://${WWW}/docs/page?lang=en`);

    // A second redirect for a domain that already redirects does not replace it silently (issue
    // 25): the form says what is there and asks; keeping it changes nothing, replacing it does.
    const redirectForm = page.getByRole('form', { name: 'Add a redirect' });
    await page.getByLabel('From', { exact: true }).selectOption(APEX);
    await page.getByLabel('To', { exact: true }).selectOption(WWW);
    await status.selectOption('308');
    await page.getByRole('button', { name: 'Add redirect' }).click();
    const warning = redirectForm.getByText(`${APEX} already redirects to ${WWW} (301).`);
    await warning.waitFor();
    await screenshotOf(redirectForm, '08b-redirect-replace-warning');
    await page.getByRole('button', { name: 'Keep the current redirect' }).click();
    await warning.waitFor({ state: 'hidden' });
    expect((await edge(APEX)).status).toBe(301);
    await page.getByRole('button', { name: 'Add redirect' }).click();
    await warning.waitFor();
    await page.getByRole('button', { name: 'Replace redirect' }).click();
    await page.getByText(`${APEX} now redirects to ${WWW} (308), instead of ${WWW} (301).`).waitFor();
    expect(await card(APEX).getByText(`Redirects to ${WWW} (308)`).isVisible()).toBe(true);
    expect((await edge(APEX)).status).toBe(308);

    // The per-domain menu, keyboard only: ArrowDown opens it on its first item, Enter picks it.
    await page.getByRole('button', { name: `Actions for ${WWW}` }).focus();
    await page.keyboard.press('ArrowDown');
    const menu = page.getByRole('menu', { name: `Actions for ${WWW}` });
    await menu.waitFor();
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual(['Set as primary', 'Re-verify', 'Remove']);
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Set as primary');
    await page.keyboard.press('End');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Remove');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe(`Actions for ${WWW}`);
    await page.keyboard.press('Enter');
    await menu.waitFor();
    await page.keyboard.press('Enter');
    await card(WWW).locator('.badge', { hasText: 'Primary' }).waitFor();
    expect(await page.getByLabel('Primary domain').inputValue()).toBe(WWW);
    expect(await unnamedControls(page)).toEqual([]);
    await screenshot(page, '08-domains-active-redirect');
  });

  it('shows live progress while the certificate is issued, then explains a CAA record that blocks it', async () => {
    dns.set('caa-browser.test', { CAA: [{ flags: 0, tag: 'issue', value: 'letsencrypt.org' }] });
    await addDomain(CAA_WWW, CAA_WWW);
    const record = page.getByRole('table', { name: `DNS records for ${CAA_WWW}` }).getByRole('row').nth(1);
    dns.set(CAA_WWW, { CNAME: (await record.locator('.record-value').textContent()) ?? '' });
    await page.getByRole('button', { name: `Verify ${CAA_WWW}` }).click();
    await waitForState(CAA_WWW, 'Issuing certificate');
    const domain = card(CAA_WWW);
    expect(await domain.getByRole('status').filter({ hasText: CAA_WWW }).textContent())
      .toBe(`${CAA_WWW}: DNS verified. Issuing the certificate…`);
    const current = domain.locator('[aria-current="step"]');
    expect(await current.textContent()).toContain('Certificate');
    await screenshot(page, '09-domain-issuing-certificate');

    // 30 minutes without a certificate: the flow diagnoses why (the page keeps polling).
    platform.clock.advance(31 * 60_000);
    await waitForState(CAA_WWW, 'Certificate delayed');
    expect(await domain.locator('.check-title', { hasText: 'A CAA record blocks our certificate authority' }).isVisible())
      .toBe(true);
    expect(await domain.getByText('caa-browser.test CAA 0 issue "letsencrypt.org"').isVisible()).toBe(true);
    expect(await domain.getByText('caa-browser.test CAA 0 issue "amazon.com"').isVisible()).toBe(true);
    expect(await domain.getByText('DNS still verifies').isVisible()).toBe(true);
    await screenshotOf(domain, '10-certificate-diagnosis');

    dns.set('caa-browser.test', { CAA: [{ flags: 0, tag: 'issue', value: 'amazon.com' }] });
    await page.getByRole('button', { name: `Re-verify ${CAA_WWW}` }).click();
    await waitForState(CAA_WWW, 'Active');
    expect((await edge(CAA_WWW)).status).toBe(200);
  });

  it('says when no record is found yet (up to 48 hours to propagate), and removes a domain that never served without a warning', async () => {
    const missing = 'www.missing-browser.test';
    await addDomain(missing, missing);
    await page.getByRole('button', { name: `Verify ${missing}` }).click();
    await waitForState(missing, 'DNS check failed');
    const alert = card(missing).getByRole('alert').filter({ hasText: 'No DNS record found yet' });
    expect(await alert.textContent()).toMatch(/up to 48 hours/);
    expect(await card(missing).getByText('No record', { exact: true }).isVisible()).toBe(true);

    const dialog = await removeViaMenu(missing);
    expect(await dialog.getByText('No redirect is set up').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Remove domain' }).click();
    await page.getByText(`${missing} was removed and no longer serves traffic.`).waitFor();
    expect(await card(missing).count()).toBe(0);
  });

  it('offers to set up a redirect before removing a live domain, and the redirect form starts from it', async () => {
    const dialog = await removeViaMenu(CAA_WWW);
    expect(await dialog.getByText('No redirect is set up').isVisible()).toBe(true);
    await dialog.getByRole('button', { name: 'Set up a redirect first' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // Focus lands on the redirect form's From, set to the domain (once the dialog has closed).
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe('redirect-from');
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe(CAA_WWW);
    await page.getByLabel('To', { exact: true }).selectOption('demo.platform.example.com');
    await page.getByLabel('Status', { exact: true }).selectOption('308');
    await page.getByRole('button', { name: 'Add redirect' }).click();
    await page.getByText(`${CAA_WWW} now redirects to demo.platform.example.com (308).`).waitFor();
    const answer = await edge(CAA_WWW, '/a?b=c');
    expect(answer.status).toBe(308);
    expect(answer.headers.location).toBe('https://demo.platform.example.com/a?b=c');
  });

  it('removes domains from their menu: refused while a redirect points at it, warned without a redirect, refused by the edge at once', async () => {
    // www is the target of the apex's redirect: the dialog says so and offers no Remove.
    let dialog = await removeViaMenu(WWW);
    expect(await dialog.getByText('Other domains redirect here').isVisible()).toBe(true);
    expect(await dialog.getByRole('button', { name: 'Remove domain' }).isDisabled()).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    // The apex redirects: no warning; it stops serving at once.
    dialog = await removeViaMenu(APEX);
    expect(await dialog.getByText(`${APEX} stops serving traffic immediately.`).isVisible()).toBe(true);
    expect(await dialog.getByText('No redirect is set up').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Remove domain' }).click();
    await page.getByText(`${APEX} was removed and no longer serves traffic.`).waitFor();
    expect(await card(APEX).count()).toBe(0);
    // Focus goes to the list the domain left, not to the top of the page.
    expect(await page.evaluate('document.activeElement?.id')).toBe('domains-heading');
    expect((await edge(APEX)).status).toBe(404);

    // www is live, primary, and nothing redirects from it: the dialog warns.
    dialog = await removeViaMenu(WWW);
    expect(await dialog.getByText('No redirect is set up').isVisible()).toBe(true);
    expect(await dialog.getByText(`It is the primary domain: demo.platform.example.com becomes primary.`).isVisible()).toBe(true);
    await screenshot(page, '11-remove-dialog', false);
    expect((await edge(WWW)).status).toBe(200);
    await dialog.getByRole('button', { name: 'Remove domain' }).click();
    const notice = page.getByText(`${WWW} was removed and no longer serves traffic.`);
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/has no redirect/);
    expect((await edge(WWW)).status).toBe(404);
    await page.getByRole('region', { name: 'Default domain' }).getByText('Primary').waitFor();
  });

  it('fits a phone screen', async () => {
    const phone = await (await newContext(browser, platform.dashboardUrl ?? '', true)).newPage();
    const phoneErrors = watchErrors(phone);
    await phone.goto('/');
    await phone.getByRole('button', { name: 'Sign in as pro@demo.local' }).click();
    await phone.getByRole('link', { name: 'Projects' }).click();
    await phone.getByRole('link', { name: 'Domains of Demo site' }).click();
    await phone.getByRole('heading', { name: CAA_WWW, exact: true }).waitFor();
    // Adding a domain on a phone: the records table becomes one block per record.
    await phone.getByLabel('Domain', { exact: true }).fill('blog.shop-browser.test');
    await phone.getByRole('button', { name: 'Add domain' }).click();
    const table = phone.getByRole('table', { name: 'DNS records for blog.shop-browser.test' });
    await table.waitFor();
    expect(await table.locator('.record-value').textContent()).toMatch(TARGET);
    const width = await pageWidth(phone);
    expect(width.width, width.overflowing.join('\n')).toBe(PHONE_WIDTH);
    await screenshot(phone, '12-phone-domains');
    await phone.context().close();
    expect(phoneErrors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
  });

  it('logged no app errors', () => {
    // Chromium logs fetch answers of 4xx as console errors (e.g. a refused action); those are expected.
    expect(errors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
  });
});
