import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.js';
import {
  buildDashboard, launchBrowser, newContext, PHONE_WIDTH, pageWidth, screenshot, sendMessage, unnamedControls,
  watchErrors,
} from './support.js';

// Issue 24 through the UI: the Webhooks section (add an endpoint, its secret shown once, a signed
// test event, rotation, removal) and a message's page with its deliveries and a re-send.
let platform: TestPlatform;
let browser: Browser;
let receiver: WebhookReceiver;
const pages: Page[] = [];
const errors: string[][] = [];

async function open(phone = false): Promise<Page> {
  const context = await newContext(browser, platform.dashboardUrl as string, phone);
  const page = await context.newPage();
  errors.push(watchErrors(page));
  pages.push(page);
  return page;
}

async function signIn(page: Page, link: 'Webhooks' | 'Messages') {
  await page.goto('/');
  await page.getByLabel('Email').fill('pro@demo.local');
  await page.getByLabel('Email').press('Enter');
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
  await page.getByRole('heading', { name: link, level: 1 }).waitFor();
}

beforeAll(async () => {
  const distDir = await buildDashboard();
  platform = await startTestPlatform({
    dashboard: { port: 0, distDir },
    webhooks: { maxHopSeconds: 1, attemptTimeoutMs: 1_000 },
  });
  browser = await launchBrowser();
  receiver = await startWebhookReceiver();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  await platform?.stop();
});
afterEach(async () => {
  for (const page of pages.splice(0)) await page.context().close();
  expect(errors.splice(0).flat().filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
});

function verify(secret: string, delivery: ReceivedDelivery | undefined) {
  const { body, headers } = delivery as ReceivedDelivery;
  return new Webhook(secret).verify(body, headers as Record<string, string>);
}

describe('Webhooks', () => {
  it('adds an endpoint, shows its secret once, sends a signed test event, rotates and removes it', async () => {
    const page = await open();
    await signIn(page, 'Webhooks');
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/desk`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.getByTestId('webhook-secret').textContent()) as string;
    expect(secret).toMatch(/^whsec_/);
    const row = page.locator('li[data-webhook-id]').filter({ hasText: `${receiver.url}/desk` });
    await row.getByText('Enabled').waitFor();
    expect(await unnamedControls(page)).toEqual([]);
    await screenshot(page, '30-webhooks-new-secret');

    await page.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByTestId('webhook-secret').count()).resolves.toBe(0);
    const before = receiver.received.length;
    await row.getByRole('button', { name: /Send a test event/ }).click();
    await page.getByText(/Test event evt_.* queued/).waitFor();
    const [test] = (await receiver.until(before + 1)).slice(before);
    expect(verify(secret, test)).toMatchObject({ type: 'webhook.test' });

    await row.getByRole('button', { name: /Rotate the secret/ }).click();
    const rotated = (await page.getByTestId('webhook-secret').textContent()) as string;
    expect(rotated).not.toBe(secret);
    await row.getByRole('button', { name: /Send a test event/ }).click();
    const [afterRotation] = (await receiver.until(before + 2)).slice(before + 1);
    expect(verify(rotated, afterRotation)).toMatchObject({ type: 'webhook.test' });
    expect(verify(secret, afterRotation)).toMatchObject({ type: 'webhook.test' });

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: /Remove/ }).click();
    await page.getByText(`Endpoint ${receiver.url}/desk removed.`).waitFor();
    await row.waitFor({ state: 'detached' });
  });

  it('shows a disabled endpoint with its reason, on a phone', async () => {
    const created = await platform.webhooks.service.create('acct_demo_pro', { url: `${receiver.url}/phone` });
    await platform.webhooks.store.disable(
      'acct_demo_pro',
      created.webhook.id,
      new Date().toISOString(),
      'Every delivery attempt failed for 5 days (since 2026-11-22T10:00:00.000Z); the last: status 500.',
    );
    const page = await open(true);
    await signIn(page, 'Webhooks');
    const row = page.locator('li[data-webhook-id]').filter({ hasText: `${receiver.url}/phone` });
    await row.locator('.badge-error').getByText('Disabled').waitFor();
    await row.getByText(/failed for 5 days/).waitFor();
    const width = await pageWidth(page);
    expect(width.width, width.overflowing.join('\n')).toBe(PHONE_WIDTH);
    await screenshot(page, '31-phone-webhooks-disabled');
    await platform.webhooks.service.remove('acct_demo_pro', created.webhook.id);
  });
});

describe('Messages', () => {
  it('opens a message by id with its deliveries and attempts, and re-sends a delivery', async () => {
    const { secret } = await platform.webhooks.service.create('acct_demo_pro', { url: `${receiver.url}/messages` });
    const before = receiver.received.length;
    const answer = await sendMessage(platform.baseUrl, platform.demoKeys.pro, 'shown in the dashboard');
    const sent = JSON.parse(answer.body) as { id: string };
    // The worker processes it and notifies: the endpoint gets message.processed.
    await receiver.until(before + 1);

    for (const phone of [false, true]) {
      const page = await open(phone);
      await signIn(page, 'Messages');
      // The recent messages, filtered by status; then the message opened by its id.
      await page.getByLabel('Status').selectOption('processed');
      await page.getByRole('link', { name: sent.id }).waitFor();
      if (!phone) await screenshot(page, '34-messages-list');
      await page.getByLabel('Message id').fill(sent.id);
      await page.getByRole('button', { name: 'Open' }).click();
      await page.getByRole('heading', { name: `Message ${sent.id}`, level: 1 }).waitFor();
      await page.getByText('shown in the dashboard').waitFor();
      const delivery = page.locator('li[data-delivery-id]').filter({ hasText: `${receiver.url}/messages` });
      await delivery.getByText('succeeded').waitFor();
      await delivery.getByRole('cell', { name: '204' }).first().waitFor();
      expect(await unnamedControls(page)).toEqual([]);
      if (phone) {
        const width = await pageWidth(page);
        expect(width.width, width.overflowing.join('\n')).toBe(PHONE_WIDTH);
        await screenshot(page, '33-phone-message-deliveries');
        continue;
      }
      await screenshot(page, '32-message-deliveries');
      await delivery.getByRole('button', { name: /Re-send message.processed/ }).click();
      const [again] = (await receiver.until(before + 2)).slice(before + 1);
      expect(again?.headers['webhook-id']).toBe(`${sent.id}.processed`);
      expect(verify(secret, again)).toMatchObject({ type: 'message.processed', data: { id: sent.id } });
      // The page re-reads by itself: the second attempt appears.
      await delivery.getByRole('rowheader', { name: '2' }).waitFor({ timeout: 20_000 });
    }
  });
});
