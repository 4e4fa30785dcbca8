import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';
import { buildDashboard, launchBrowser, newContext, watchErrors } from './support.js';

// Issue 17, on TanStack Query (dashboard/src/query-client.ts): keys, usage and domain checks
// refresh on their own while the tab is visible, and not while it is hidden. Playwright's clock runs
// the app's timers on demand; the tab is hidden as a browser reports it (document.visibilityState
// and a visibilitychange event), which a headless page never does by itself.
let platform: TestPlatform;
let browser: Browser;

beforeAll(async () => {
  const distDir = await buildDashboard();
  platform = await startTestPlatform({ dashboard: { port: 0, distDir } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

async function setVisibility(page: Page, state: 'hidden' | 'visible'): Promise<void> {
  await page.evaluate(`Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${state}' });
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));`);
}

/**
 * Proves no read is under way without waiting a while: a request the test makes itself, after the
 * timers ran, is answered only after any request the app made before it was reported (Chromium
 * reports the requests of a page in the order they are sent).
 */
const barrier = (page: Page) => page.evaluate('fetch("config.json", { cache: "no-store" }).then((r) => r.text())');

describe('refreshing while visible', () => {
  it('re-reads the keys once every 10 s while the tab is visible, never while hidden, and at once when visible again', async () => {
    const context = await newContext(browser, platform.dashboardUrl ?? '');
    await context.clock.install();
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto('/');
    await page.getByLabel('Email').fill('free@demo.local');
    await page.getByLabel('Email').press('Enter');
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Your keys' }).waitFor();

    // From here the page's time moves only when the test moves it.
    await page.clock.pauseAt(new Date(Date.now() + 1_000));
    await barrier(page);
    const isKeysRead = (request: Request) =>
      request.method() === 'GET' && /\/api\/accounts\/[^/]+\/keys$/.test(new URL(request.url()).pathname);
    const reads: string[] = [];
    let answered = 0;
    page.on('request', (request) => {
      if (isKeysRead(request)) reads.push(request.url());
    });
    page.on('requestfinished', (request) => {
      if (isKeysRead(request)) answered++;
    });
    /** Moves the page's clock 10 s, lets the read it starts (if any) finish, and says how many reads there were. */
    const tenSeconds = async () => {
      await page.clock.runFor(10_000);
      await barrier(page);
      // The app starts the next read only once this one is answered.
      await expect.poll(() => answered).toBe(reads.length);
      return reads.length;
    };

    // Any 10 s of a visible tab holds exactly one re-read.
    expect(await tenSeconds()).toBe(1);
    expect(await tenSeconds()).toBe(2);
    expect(await tenSeconds()).toBe(3);

    await setVisibility(page, 'hidden');
    for (let i = 0; i < 6; i++) expect(await tenSeconds()).toBe(3);

    await setVisibility(page, 'visible');
    await expect.poll(() => answered).toBe(4);
    await barrier(page);
    expect(reads).toHaveLength(4);
    expect(await tenSeconds()).toBe(5);

    expect(errors).toEqual([]);
    await context.close();
  });
});
