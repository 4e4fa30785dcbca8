import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';
import { buildDashboard, launchBrowser, newContext, watchErrors } from './support.js';

// Issue 17: keys, usage and domain checks refresh on their own while the tab is visible, and not
// while it is hidden (dashboard/src/components/usePolling.ts). Playwright's clock runs the app's
// timers on demand; the tab is hidden as a browser reports it (document.visibilityState and a
// visibilitychange event), which a headless page never does by itself.
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
    document.dispatchEvent(new Event('visibilitychange'));`);
}

/** Lets the app finish a read (its answer, then the next timer it schedules) in real time. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('refreshing while visible', () => {
  it('re-reads the keys every 10 s while the tab is visible, never while hidden, and at once when visible again', async () => {
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
    // Reads whose answer arrived: the hook schedules the next one after the answer.
    const reads: string[] = [];
    page.on('requestfinished', (request) => {
      if (request.method() === 'GET' && /\/api\/accounts\/[^/]+\/keys$/.test(new URL(request.url()).pathname)) {
        reads.push(request.url());
      }
    });

    // The first re-read comes within 10 s of the page's own load; the next exactly 10 s after it.
    await page.clock.runFor(10_000);
    await expect.poll(() => reads.length).toBe(1);
    await settle();
    await page.clock.runFor(9_000);
    await settle();
    expect(reads).toHaveLength(1);
    await page.clock.runFor(1_000);
    await expect.poll(() => reads.length).toBe(2);
    await settle();

    await setVisibility(page, 'hidden');
    await page.clock.runFor(60_000);
    await settle();
    expect(reads).toHaveLength(2);

    await setVisibility(page, 'visible');
    await expect.poll(() => reads.length).toBe(3);
    await settle();
    await page.clock.runFor(10_000);
    await expect.poll(() => reads.length).toBe(4);

    expect(errors).toEqual([]);
    await context.close();
  });
});
