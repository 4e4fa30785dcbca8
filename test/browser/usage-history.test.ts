import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatNumber } from '../../dashboard/src/format.js';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.js';
import {
  buildDashboard, launchBrowser, newContext, PHONE_WIDTH, pageWidth, screenshot, screenshotOf, sendMessage,
  unnamedControls, watchErrors,
} from './support.js';

// Issue 17, usage over time and the upgrade path, through the UI: the history chart and tables
// with data produced by real requests on the local platform (messages the local worker processed,
// 429s from the limiter), the approximate-refusals note, the upgrade path, keyboard and phone.
let platform: TestPlatform;
let browser: Browser;
let dashboardUrl: string;
const pages: Page[] = [];
const errors: string[][] = [];

const ACCEPTED = 60;
const REFUSED = 5;
const today = () => new Date(platform.clock.now()).toISOString().slice(0, 10);

async function open(phone = false): Promise<Page> {
  const page = await (await newContext(browser, dashboardUrl, phone)).newPage();
  errors.push(watchErrors(page));
  pages.push(page);
  await page.goto('/');
  await page.getByLabel('Email').fill('free@demo.local');
  await page.getByLabel('Email').press('Enter');
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  await page.getByRole('link', { name: 'Plan & usage' }).click();
  await page.getByRole('heading', { name: 'Last 30 days' }).waitFor();
  return page;
}

beforeAll(async () => {
  const distDir = await buildDashboard();
  platform = await startTestPlatform({ dashboard: { port: 0, distDir } });
  if (!platform.dashboardUrl) throw new Error('the platform did not start the dashboard');
  dashboardUrl = platform.dashboardUrl;
  browser = await launchBrowser();
  // Real requests with the Free demo key: the minute's 60, then 429s (fewer than a ban takes).
  const key = platform.demoKeys.free;
  for (let i = 0; i < ACCEPTED + REFUSED; i++) await sendMessage(platform.baseUrl, key, `message ${i}`);
  await eventually(async () => {
    const history = await fetch(`${platform.controlUrl}/accounts/acct_demo_free/usage/history?days=1`);
    const { totals } = (await history.json()) as { totals: { accepted: number } };
    return totals.accepted === ACCEPTED ? true : undefined;
  }, 15_000, 100);
});

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
});

afterEach(async () => {
  for (const page of pages.splice(0)) await page.context().close();
  expect(errors.splice(0).flat().filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
});

describe('Plan & usage: the last 30 days', () => {
  it('charts the requests per day and lists them per day and per key, saying refused counts are approximate', async () => {
    const page = await open();
    const section = page.getByRole('region', { name: 'Last 30 days' });
    const facts = section.locator('dl.facts');
    await facts.waitFor();
    expect(await facts.locator('dt').allTextContents()).toEqual(['Accepted', 'Rate limited (429)', 'Banned (429)']);
    expect(await facts.locator('dd').allTextContents()).toEqual([formatNumber(ACCEPTED), String(REFUSED), '0']);
    await expect.poll(() => section.getByText('Refused counts are approximate').isVisible()).toBe(true);

    // The chart: 30 days, today's bar stacked accepted (60) under rate limited (5), to scale.
    const chart = section.getByRole('img', { name: /^Requests per UTC day from / });
    expect(await chart.locator('g[data-date]').count()).toBe(30);
    const bar = chart.locator(`g[data-date="${today()}"]`);
    const accepted = Number(await bar.locator('rect.series-accepted').getAttribute('height'));
    const rateLimited = Number(await bar.locator('rect.series-rate-limited').getAttribute('height'));
    expect(accepted / rateLimited).toBeCloseTo(ACCEPTED / REFUSED, 5);
    expect(await bar.locator('rect.series-banned').count()).toBe(0);
    expect(await chart.locator('g[data-date] rect').count()).toBe(2);

    // The same numbers as a table (the chart's text alternative), newest first, with the totals:
    // folded by default, so its 30 rows do not push the rest of the page down.
    expect(await section.locator('details.history-days').getAttribute('open')).toBeNull();
    await section.getByText('Requests per day (table)').click();
    const perDay = section.getByRole('table', { name: /^Requests per day/ });
    expect(await chart.getAttribute('aria-describedby')).toBe(await perDay.getAttribute('id'));
    expect((await perDay.locator('tbody tr').first().innerText()).split('\t')).toEqual([today(), '60', '5', '0']);
    expect(await perDay.locator('tbody tr').count()).toBe(30);
    expect((await perDay.locator('tfoot tr').innerText()).split('\t')).toEqual(['Total', '60', '5', '0']);
    const perKey = section.getByRole('table', { name: /^Each key/ });
    const demoKey = perKey.locator('tbody tr').first();
    expect(await demoKey.locator('td').allTextContents()).toEqual([expect.stringMatching(/^sk_live_/), '●Active', '60', '5', '0']);
    expect(await unnamedControls(page)).toEqual([]);
    await screenshotOf(section, '18-usage-history');
  });

  it('reaches the chart by keyboard (it scrolls sideways when narrow)', async () => {
    const page = await open();
    const region = page.getByRole('region', { name: /^Chart of requests per day/ });
    let focused = false;
    for (let i = 0; i < 40 && !focused; i++) {
      await page.keyboard.press('Tab');
      focused = await region.evaluate((el) => el === el.ownerDocument.activeElement);
    }
    expect(focused).toBe(true);
  });

  it('compares the plans from the catalogue first, says billing is not part of the platform, and shows no operator command', async () => {
    const page = await open();
    await page.getByRole('link', { name: 'Compare plans' }).click();
    await page.getByRole('heading', { name: 'Plans', level: 1 }).waitFor();
    const { free, pro, business } = platform.config.plans;
    const limits = (plan: typeof pro) => `${formatNumber(plan.limits.perMinute)} requests a minute, ${formatNumber(plan.limits.perDay)} a day`;
    expect(await page.locator('.plan-limits').allInnerTexts()).toEqual([
      limits(free), limits(pro), limits(business), 'Limits agreed with you',
    ]);
    // The plans are the first thing on the page, above the fold of a laptop screen.
    const top = await page.getByRole('list', { name: 'Plans' }).boundingBox();
    expect(top?.y).toBeLessThan(400);
    expect(await page.getByText('Billing is not part of the platform').isVisible()).toBe(true);
    expect(await page.locator('body').textContent()).not.toContain('npm run platform');
  });

  it('fits a 390-px phone: the chart scrolls inside its frame, with a visible hint', async () => {
    const page = await open(true);
    expect((await pageWidth(page)).width).toBe(PHONE_WIDTH);
    await expect.poll(() => page.getByText('Scroll sideways to see every day.').isVisible()).toBe(true);
    const frame = page.getByRole('region', { name: /^Chart of requests per day/ });
    expect(await frame.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    await screenshot(page, '18-phone-usage');
  });
});
