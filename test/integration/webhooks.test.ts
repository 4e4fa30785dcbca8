import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MessageOutcomeType } from '../../contracts/messages.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../lambda/webhooks/retry-schedule.js';

const delayAfter = (attempt: number) => RETRY_DELAYS_MS[attempt - 1] as number;
import { call, eventually, send, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.js';

let platform: TestPlatform;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  // Hops of 1 s on the delivery queue, so that moving the ManualClock makes a retry due within a
  // second; a receiver that never answers is given up after 300 ms instead of 15 s.
  platform = await startTestPlatform({ webhooks: { maxHopSeconds: 1, attemptTimeoutMs: 300 } });
}, 60_000);
afterAll(() => platform?.stop());
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

async function receiver(...args: Parameters<typeof startWebhookReceiver>) {
  const started = await startWebhookReceiver(...args);
  receivers.push(started);
  return started;
}

/** A fresh account (its own endpoints), one of its keys, and an endpoint at `url`. */
async function accountWithEndpoint(url: string, events?: readonly MessageOutcomeType[]) {
  const account = await platform.accountService.createAccount({ name: 'webhooks', plan: 'pro' });
  const key = await platform.issueKey(account, 'webhooks');
  const created = await platform.webhooks.service.create(account.accountId, { url, ...(events ? { events } : {}) });
  return { accountId: account.accountId, key, webhookId: created.webhook.id, secret: created.secret };
}

/** Sends a message, waits until the worker processed it, and answers its public resource. */
async function processedMessage(key: string): Promise<Record<string, unknown> & { id: string }> {
  const sent = await send(platform, key, 'webhook me');
  expect(sent.status).toBe(202);
  const id = sent.body.id as string;
  return eventually(async () => {
    const { body } = await call(platform, `/messages/${id}`, { key });
    return body.status === 'processed' ? (body as Record<string, unknown> & { id: string }) : undefined;
  });
}

// The worker notifies once a message is final; a test notifies again as a redelivery would.
const notify = (type: MessageOutcomeType, message: Record<string, unknown> & { id: string }) =>
  platform.webhooks.outcomes.notify(type, message as never);

const verify = (secret: string, delivery: ReceivedDelivery) =>
  new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);

const deliveryOf = (messageId: string, webhookId: string) =>
  platform.webhooks.store.getDelivery(`message#${messageId}`, `${messageId}.processed`, webhookId);

async function deliveryQueueDrained(): Promise<true | undefined> {
  const { Attributes = {} } = await platform.webhooks.queueClient.send(
    new GetQueueAttributesCommand({
      QueueUrl: platform.webhooks.queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  const total = Object.values(Attributes).reduce((sum, n) => sum + Number(n), 0);
  return total === 0 ? true : undefined;
}

describe('signed deliveries (Standard Webhooks)', () => {
  it('a customer verifies the delivery with the standardwebhooks library; a wrong secret does not', async () => {
    const hook = await receiver();
    const { key, secret, webhookId } = await accountWithEndpoint(hook.url);
    const message = await processedMessage(key);

    const [delivery] = await hook.until(1);
    type Event = { type: string; timestamp: string; data: Record<string, unknown> };
    const event = verify(secret, delivery as ReceivedDelivery) as Event;
    expect(event.type).toBe('message.processed');
    expect(event.timestamp).toBe(message.processedAt);
    expect(event.data).toEqual(message);
    expect(delivery?.headers['webhook-id']).toBe(`${message.id}.processed`);

    const wrong = (await platform.webhooks.service.create('acct_other', { url: hook.url })).secret;
    expect(() => verify(wrong, delivery as ReceivedDelivery)).toThrow(/signature/i);
    const tampered = { ...(delivery as ReceivedDelivery), body: (delivery as ReceivedDelivery).body.replace('webhook me', 'webhook mE') };
    expect(() => verify(secret, tampered)).toThrow();

    const recorded = await eventually(async () => {
      const d = await deliveryOf(message.id, webhookId);
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(recorded.attempts).toHaveLength(1);
    expect(recorded.attempts[0]).toMatchObject({ attempt: 1, statusCode: 204 });
  });

  it('after a rotation both the new and the old secret verify during the overlap', async () => {
    const hook = await receiver();
    const { accountId, key, secret: oldSecret, webhookId } = await accountWithEndpoint(hook.url);
    const rotated = await platform.webhooks.service.rotateSecret(accountId, webhookId);
    expect(rotated.secret).not.toBe(oldSecret);
    expect(Date.parse(rotated.previousSecretExpiresAt)).toBe(platform.clock.now() + 24 * 3_600_000);

    await processedMessage(key);
    const [delivery] = await hook.until(1);
    expect(String(delivery?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => verify(rotated.secret, delivery as ReceivedDelivery)).not.toThrow();
    expect(() => verify(oldSecret, delivery as ReceivedDelivery)).not.toThrow();
  });

  it('one message.processed delivery per message, however often the worker notifies', async () => {
    const hook = await receiver();
    const { key, webhookId } = await accountWithEndpoint(hook.url);
    const message = await processedMessage(key);
    // The worker notified once; redeliveries of its message find the record final and notify again.
    await Promise.all([notify('message.processed', message), notify('message.processed', message)]);
    await notify('message.processed', message);

    await hook.until(1);
    await eventually(async () => ((await deliveryOf(message.id, webhookId))?.status === 'succeeded' ? true : undefined));
    await eventually(deliveryQueueDrained);
    expect(hook.received).toHaveLength(1);
  });

  it('only subscribed events reach an endpoint', async () => {
    const hook = await receiver();
    const { key } = await accountWithEndpoint(hook.url, ['message.failed']);
    await processedMessage(key);
    await eventually(deliveryQueueDrained);
    expect(hook.received).toHaveLength(0);
  });
});

describe('retries', () => {
  it('a receiver answering 500 then 200 gets the retry with the same webhook-id', async () => {
    const hook = await receiver((index) => (index === 0 ? 500 : 200));
    const { key, secret, webhookId } = await accountWithEndpoint(hook.url);
    const message = await processedMessage(key);

    await hook.until(1);
    const pending = await eventually(async () => {
      const d = await deliveryOf(message.id, webhookId);
      return d?.attempts.length === 1 ? d : undefined;
    });
    expect(pending).toMatchObject({ status: 'pending', attempts: [{ attempt: 1, statusCode: 500, error: 'status 500' }] });
    expect(Date.parse(pending.nextAttemptAt as string)).toBe(platform.clock.now() + delayAfter(1));

    platform.clock.advance(delayAfter(1));
    const [first, second] = await hook.until(2);
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(second?.body).toBe(first?.body);
    expect(() => verify(secret, second as ReceivedDelivery)).not.toThrow();
    const done = await eventually(async () => {
      const d = await deliveryOf(message.id, webhookId);
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(done.attempts.map((a) => a.statusCode)).toEqual([500, 200]);
  });

  it('a receiver that never answers is given up after the schedule, and its endpoint disabled after 5 days', async () => {
    const hook = await receiver(() => 'hang');
    const { accountId, key, webhookId } = await accountWithEndpoint(hook.url);
    const message = await processedMessage(key);
    const firstAttemptAt = platform.clock.now();

    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await hook.until(attempt);
      await eventually(async () =>
        (await deliveryOf(message.id, webhookId))?.attempts.length === attempt ? true : undefined,
      );
      if (attempt < MAX_ATTEMPTS) platform.clock.advance(delayAfter(attempt));
    }
    const given = await deliveryOf(message.id, webhookId);
    expect(given).toMatchObject({ status: 'failed', reason: 'retries_exhausted' });
    expect(given?.attempts.every((a) => a.error?.startsWith('timeout'))).toBe(true);
    expect(Date.parse(given?.attempts.at(-1)?.at as string) - firstAttemptAt).toBeGreaterThanOrEqual(24 * 3_600_000);
    await eventually(deliveryQueueDrained);
    expect(hook.received).toHaveLength(MAX_ATTEMPTS);
    // Failing since the first attempt, but not yet for 5 days: still enabled.
    expect((await platform.webhooks.service.list(accountId))[0]).toMatchObject({ status: 'enabled' });

    platform.clock.set(firstAttemptAt + 5 * 86_400_000);
    const later = await processedMessage(key);
    await hook.until(MAX_ATTEMPTS + 1);
    const disabled = await eventually(async () => {
      const [view] = await platform.webhooks.service.list(accountId);
      return view?.status === 'disabled' ? view : undefined;
    });
    expect(disabled.disabledReason).toMatch(/failed for 5 days.*timeout/);

    // A disabled endpoint gets nothing more: the pending retry is abandoned.
    platform.clock.advance(delayAfter(1));
    await eventually(async () =>
      (await deliveryOf(later.id, webhookId))?.status === 'abandoned' ? true : undefined,
    );
    expect(hook.received).toHaveLength(MAX_ATTEMPTS + 1);
  });
});
