import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';
import { type ReceivedDelivery, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

// `platform webhooks list|add|remove|rotate|test --account ID` against the local control API.
let platform: TestPlatform;
let receiver: WebhookReceiver;
beforeAll(async () => {
  platform = await startTestPlatform({ webhooks: { maxHopSeconds: 1, attemptTimeoutMs: 500 } });
  receiver = await startWebhookReceiver();
}, 60_000);
afterAll(async () => {
  await receiver?.stop();
  await platform?.stop();
});

const cli = (...argv: string[]) => runCli([...argv, '--url', platform.controlUrl]);

function verify(secret: string, delivery: ReceivedDelivery | undefined) {
  const { body, headers } = delivery as ReceivedDelivery;
  return new Webhook(secret).verify(body, headers as Record<string, string>);
}

describe('webhooks commands', () => {
  it('add, list, test, rotate and remove an endpoint', async () => {
    const account = (await platform.accountService.createAccount({ name: 'cli hooks', plan: 'pro' })).accountId;
    const added = await cli('webhooks', 'add', '--account', account, '--endpoint', receiver.url, '--events', 'message.failed');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain('will not be shown again');
    const secret = /secret: (whsec_\S+)/.exec(added.stdout)?.[1] as string;
    const webhookId = /Added webhook (wh_\S+)\./.exec(added.stdout)?.[1] as string;
    expect(secret).toBeDefined();

    const listed = await cli('webhooks', 'list', '--account', account, '--json');
    expect(JSON.parse(listed.stdout)).toEqual({
      webhooks: [expect.objectContaining({ id: webhookId, url: receiver.url, events: ['message.failed'], status: 'enabled' })],
    });
    expect(listed.stdout).not.toContain(secret);

    const tested = await cli('webhooks', 'test', '--account', account, '--webhook', webhookId);
    expect(tested.stdout).toMatch(/Queued test event evt_\S+ \(webhook.test\)/);
    const [first] = await receiver.until(1);
    expect(verify(secret, first)).toMatchObject({ type: 'webhook.test', data: { webhookId } });

    const rotated = await cli('webhooks', 'rotate', '--account', account, '--webhook', webhookId, '--json');
    const newSecret = (JSON.parse(rotated.stdout) as { secret: string }).secret;
    expect(newSecret).not.toBe(secret);
    await cli('webhooks', 'test', '--account', account, '--webhook', webhookId);
    const [, second] = await receiver.until(2);
    expect(verify(newSecret, second)).toMatchObject({ type: 'webhook.test' });
    expect(verify(secret, second)).toMatchObject({ type: 'webhook.test' });

    expect((await cli('webhooks', 'remove', '--account', account, '--webhook', webhookId)).stdout).toContain(`Removed webhook ${webhookId}`);
    const gone = await cli('webhooks', 'remove', '--account', account, '--webhook', webhookId);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`No webhook ${webhookId}`);
    expect((await cli('webhooks', 'list', '--account', account)).stdout).toBe('No webhook endpoints.\n');
  });

  it('refuses a bad URL with the API\'s reason', async () => {
    const bad = await cli('webhooks', 'add', '--account', 'acct_demo_pro', '--endpoint', 'ftp://hooks.example.com/');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('url must use https or http.');
  });
});
