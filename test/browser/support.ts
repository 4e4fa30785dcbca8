import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { buildDashboard as buildLocalDashboard, dashboardSourceHash } from '../../local/dashboard.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
export const SCREENSHOTS = join(ROOT, 'artifacts', 'screenshots');

/**
 * Builds the dashboard from the current sources into a temporary folder named by a hash of those
 * sources, so every test file tests the code as it is, and files share one build (the staging and
 * the check are local/dashboard.ts's `buildDashboard`, as for npm start).
 */
export async function buildDashboard(): Promise<string> {
  const name = `dashboard-browser-test-${dashboardSourceHash().slice(0, 16)}`;
  // Builds of older sources (and abandoned staging folders) are of no further use, once no run can
  // still be serving them (a run of other sources may be going on: an hour is plenty).
  for (const old of readdirSync(tmpdir()).filter((n) => n.startsWith('dashboard-browser-test-') && !n.startsWith(name))) {
    const path = join(tmpdir(), old);
    try {
      if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by a parallel run meanwhile.
    }
  }
  return buildLocalDashboard({ outDir: join(tmpdir(), name), quiet: true });
}

/** Debian's Chromium, headless; never a downloaded browser. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A phone's viewport width in CSS pixels (the page must not be wider: no horizontal scrolling). */
export const PHONE_WIDTH = 390;

export async function newContext(browser: Browser, baseURL: string, phone = false): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL,
    ...(phone
      ? { viewport: { width: PHONE_WIDTH, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }
      : { viewport: { width: 1280, height: 900 } }),
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  context.setDefaultTimeout(15_000);
  return context;
}

/** A screenshot into artifacts/screenshots: the whole page (from its top, where the sticky header belongs), or the viewport. */
export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  if (fullPage) await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}

/** A screenshot of one element (a domain card, a dialog). */
export async function screenshotOf(locator: Locator, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // The sticky header would cover the top of an element scrolled into view. (Through the CSSOM:
  // the dashboard's CSP refuses the inline style tag of Playwright's `style` option.)
  const header = (position: string) => `document.querySelector('.topbar')?.style.setProperty('position', '${position}')`;
  await locator.page().evaluate(header('static'));
  await locator.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
  await locator.page().evaluate(header(''));
}

/** Collects uncaught page errors and console errors, to fail a test on them. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message} ${error.stack?.split('\n').slice(1, 4).join(' | ') ?? ''}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return errors;
}

/**
 * Every interactive control on the page has an accessible name: Chromium's accessibility tree
 * (aria snapshot) lists an unnamed control as its bare role.
 */
export async function unnamedControls(page: Page): Promise<string[]> {
  const snapshot = await page.locator('body').ariaSnapshot();
  const unnamed = /^\s*- (textbox|combobox|button|link|menuitem|progressbar|checkbox|radio|listbox|dialog)(?: \[[^\]]*\])*(?::.*)?$/;
  return snapshot.split('\n').filter((line) => unnamed.test(line));
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A plain HTTP request with node:http (curl-equivalent; it can set Host, which fetch cannot). */
export function http(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpAnswer> {
  return new Promise((resolvePromise, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** POST /messages with an API key, as the curl example in the dashboard does. */
export const sendMessage = (messagesApiUrl: string, key: string, message = 'Hello from the browser test') =>
  http(`${messagesApiUrl}/messages`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ message }),
  });

/**
 * The page's width, and the elements that stick out to the right of a phone's viewport (to name
 * the culprit when the page scrolls sideways).
 */
export async function pageWidth(page: Page): Promise<{ width: number; overflowing: string[] }> {
  return (await page.evaluate(`(() => {
    const overflowing = [];
    for (const el of document.querySelectorAll('body *')) {
      const right = el.getBoundingClientRect().right;
      if (right > ${PHONE_WIDTH} + 0.5) {
        overflowing.push(el.tagName.toLowerCase() + '.' + el.className + ' → ' + Math.round(right) + ': ' + (el.textContent || '').slice(0, 30));
      }
    }
    return { width: document.documentElement.scrollWidth, overflowing: overflowing.slice(0, 10) };
  })()`)) as { width: number; overflowing: string[] };
}
