import type { LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookPoster } from '../../../lambda/webhooks/http-sender.js';
import { AWS_DELIVERY_POLICY, LOCAL_DELIVERY_POLICY, urlProblem } from '../../../lambda/webhooks/network-policy.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';

/** A resolver that answers `address` for every name, as a rebinding or internal DNS name would. */
function resolvingTo(address: string, family: 4 | 6 = 4): LookupFunction {
  type AllCallback = (error: null, addresses: { address: string; family: number }[]) => void;
  return (_hostname, options, callback) => {
    if (options.all) (callback as AllCallback)(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver(() => 200);
});
afterAll(() => receiver.stop());

const port = () => new URL(receiver.url).port;

describe('the delivery guard with the AWS settings', () => {
  const post = createWebhookPoster(AWS_DELIVERY_POLICY, { timeoutMs: 2_000 });

  it.each([
    ['loopback', () => `https://127.0.0.1:${port()}/hooks`],
    ['private', () => 'https://10.0.0.1/hooks'],
    ['the metadata service', () => 'https://169.254.169.254/latest/meta-data/'],
    ['IPv6 loopback', () => `https://[::1]:${port()}/hooks`],
  ])('refuses %s at connect time', async (_what, url) => {
    const outcome = await post(url(), {}, '{}');
    expect(outcome).toMatchObject({ ok: false, error: expect.stringMatching(/^address_not_allowed/) });
  });

  it('refuses a DNS name that resolves to a private address', async () => {
    for (const address of ['10.0.0.1', '192.168.1.20', '127.0.0.1']) {
      const policy = { ...AWS_DELIVERY_POLICY, lookup: resolvingTo(address) };
      const rebinding = createWebhookPoster(policy, { timeoutMs: 2_000 });
      const outcome = await rebinding(`https://hooks.customer.example:${port()}/hooks`, {}, '{}');
      expect(outcome.error, address).toMatch(/^address_not_allowed/);
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses http:// URLs', async () => {
    expect(urlProblem('http://hooks.example.com/', AWS_DELIVERY_POLICY)).toBe('url must use https.');
    const outcome = await post(receiver.url, {}, '{}');
    expect(outcome).toMatchObject({ ok: false, error: expect.stringMatching(/^url_not_allowed/) });
    expect(receiver.received).toHaveLength(0);
  });
});

describe('the local platform settings', () => {
  it('allow a loopback receiver over http, and do not follow redirects', async () => {
    const post = createWebhookPoster(LOCAL_DELIVERY_POLICY, { timeoutMs: 2_000 });
    expect(await post(receiver.url, { 'webhook-id': 'msg_1.processed' }, '{"a":1}')).toMatchObject({ ok: true, statusCode: 200 });
    expect(receiver.received.at(-1)).toMatchObject({ body: '{"a":1}' });

    receiver.respond = () => 302;
    expect(await post(receiver.url, {}, '{}')).toMatchObject({ ok: false, statusCode: 302, error: 'status 302' });
    receiver.respond = () => 200;
  });

  it('still refuse private addresses other than loopback', async () => {
    const post = createWebhookPoster({ ...LOCAL_DELIVERY_POLICY, lookup: resolvingTo('10.1.2.3') }, { timeoutMs: 2_000 });
    expect((await post('http://internal.example/', {}, '{}')).error).toMatch(/^address_not_allowed/);
  });
});

describe('endpoint URLs', () => {
  it.each([
    [undefined, 'url is required.'],
    ['not a url', 'url must be an absolute URL.'],
    ['ftp://hooks.example.com/', 'url must use https.'],
    ['https://user:pw@hooks.example.com/', 'url must not carry credentials.'],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, 'url must be at most 2048 characters.'],
  ])('refusal %#: %s', (url, problem) => {
    expect(urlProblem(url, AWS_DELIVERY_POLICY)).toBe(problem);
  });

  it('an https URL is accepted', () => {
    expect(urlProblem('https://hooks.example.com/messages?x=1', AWS_DELIVERY_POLICY)).toBeUndefined();
  });
});
