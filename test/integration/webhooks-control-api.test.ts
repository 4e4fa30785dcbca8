import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertResponseMatchesSpec,
  createResponseValidator,
  readResponse,
  type ResponseValidator,
} from '../support/openapi.js';
import { CONTROL_API_OPENAPI_PATH } from '../support/openapi-document.js';
import { eventually, send, startTestPlatform, type TestPlatform } from '../support/platform.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver.js';

// The webhook routes and the dashboard's message page of the control API, each answer checked
// against openapi/control-api.yaml; every Webhooks and Messages operation and code is exercised.
type Body = Record<string, unknown>;
let platform: TestPlatform;
let validator: ResponseValidator;
let hook: WebhookReceiver;
const exercised = new Set<string>();
const codes = new Set<string>();

beforeAll(async () => {
  validator = createResponseValidator({ specPath: CONTROL_API_OPENAPI_PATH });
  platform = await startTestPlatform({ webhooks: { maxHopSeconds: 1, attemptTimeoutMs: 500 } });
  hook = await startWebhookReceiver();
}, 60_000);
afterAll(async () => {
  await hook?.stop();
  await platform?.stop();
});

async function cp(method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${platform.controlUrl}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const observed = await readResponse(method, path, res);
  assertResponseMatchesSpec(observed, validator);
  const template = Object.keys(validator.document.paths).find((t) =>
    new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path.split('?')[0] as string),
  );
  if (template) exercised.add(`${method} ${template}`);
  const parsed = (observed.body ?? {}) as Body;
  if (observed.status >= 400 && typeof parsed.code === 'string') codes.add(parsed.code);
  return { status: observed.status, body: parsed };
}

const problem = (answer: { status: number; body: Body }) => ({ status: answer.status, code: answer.body.code });

describe('webhook endpoints over the control API', () => {
  let accountId: string;
  let key: string;

  beforeAll(async () => {
    const account = await platform.accountService.createAccount({ name: 'hooks', plan: 'pro' });
    accountId = account.accountId;
    key = await platform.issueKey(account, 'hooks');
  });

  it('creates an endpoint, shows its secret once, lists it without, and refuses bad input', async () => {
    const created = await cp('POST', `/accounts/${accountId}/webhooks`, { url: hook.url });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      webhook: { url: hook.url, events: ['message.processed', 'message.failed'], status: 'enabled' },
      secret: expect.stringMatching(/^whsec_/),
    });
    const listed = await cp('GET', `/accounts/${accountId}/webhooks`);
    expect(listed.body.webhooks).toEqual([created.body.webhook]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret as string);

    expect(problem(await cp('POST', `/accounts/${accountId}/webhooks`, { url: 'ftp://x.example/' }))).toEqual({
      status: 400,
      code: 'invalid_url',
    });
    expect(problem(await cp('POST', `/accounts/${accountId}/webhooks`, { url: hook.url, events: ['message.sent'] }))).toEqual({
      status: 400,
      code: 'invalid_events',
    });
    const webhookId = (created.body.webhook as Body).id as string;
    expect((await cp('DELETE', `/accounts/${accountId}/webhooks/${webhookId}`)).body).toEqual({ id: webhookId, removed: true });
    expect(problem(await cp('DELETE', `/accounts/${accountId}/webhooks/${webhookId}`))).toEqual({
      status: 404,
      code: 'webhook_not_found',
    });
  });

  it('allows at most 10 endpoints per account', async () => {
    const account = await platform.accountService.createAccount({ name: 'many hooks', plan: 'pro' });
    for (let i = 0; i < 10; i++) {
      expect((await cp('POST', `/accounts/${account.accountId}/webhooks`, { url: `${hook.url}/${i}` })).status).toBe(201);
    }
    expect(problem(await cp('POST', `/accounts/${account.accountId}/webhooks`, { url: hook.url }))).toEqual({
      status: 409,
      code: 'webhook_limit_reached',
    });
  });

  it('sends a signed test event, rotates the secret, and refuses a disabled endpoint', async () => {
    const created = await cp('POST', `/accounts/${accountId}/webhooks`, { url: hook.url });
    const webhookId = (created.body.webhook as Body).id as string;
    const before = hook.received.length;
    const sent = await cp('POST', `/accounts/${accountId}/webhooks/${webhookId}/test`);
    expect(sent).toMatchObject({ status: 202, body: { type: 'webhook.test' } });
    const delivery = (await hook.until(before + 1))[before] as ReceivedDelivery;
    const verifier = new Webhook(created.body.secret as string);
    const event = verifier.verify(delivery.body, delivery.headers as Record<string, string>);
    expect(event).toMatchObject({ type: 'webhook.test', data: { webhookId } });
    const tests = await eventually(async () => {
      const answer = await cp('GET', `/accounts/${accountId}/webhooks/${webhookId}/test-deliveries`);
      const [first] = answer.body.deliveries as Body[];
      return first?.status === 'succeeded' ? first : undefined;
    });
    expect(tests).toMatchObject({ eventId: sent.body.eventId, attempts: [{ attempt: 1, statusCode: 204 }] });

    const rotated = await cp('POST', `/accounts/${accountId}/webhooks/${webhookId}/rotate-secret`);
    expect(rotated.body.secret).not.toBe(created.body.secret);

    await platform.webhooks.store.disable(accountId, webhookId, new Date().toISOString(), 'test: disabled by hand');
    expect(problem(await cp('POST', `/accounts/${accountId}/webhooks/${webhookId}/test`))).toEqual({
      status: 409,
      code: 'webhook_disabled',
    });
    await cp('DELETE', `/accounts/${accountId}/webhooks/${webhookId}`);
  });

  it('shows a message with its deliveries, and re-sends one with the same webhook-id', async () => {
    const created = await cp('POST', `/accounts/${accountId}/webhooks`, { url: hook.url });
    const webhookId = (created.body.webhook as Body).id as string;
    const before = hook.received.length;
    const sent = await send(platform, key, 'see my deliveries');
    const id = sent.body.id as string;
    // The worker processes it and notifies: the endpoint gets message.processed.
    await hook.until(before + 1);

    const page = await eventually(async () => {
      const answer = await cp('GET', `/accounts/${accountId}/messages/${id}`);
      const [delivery] = answer.body.deliveries as Body[];
      return delivery?.status === 'succeeded' ? answer.body : undefined;
    });
    expect(page).toMatchObject({ id, status: 'processed', message: 'see my deliveries' });
    const [delivery] = page.deliveries as Body[];
    expect(delivery).toMatchObject({ id: `${webhookId}.message.processed`, eventId: `${id}.processed` });

    const resent = await cp('POST', `/accounts/${accountId}/messages/${id}/deliveries/${delivery?.id as string}/resend`);
    expect(resent.status).toBe(202);
    const again = (await hook.until(before + 2))[before + 1];
    expect(again?.headers['webhook-id']).toBe(`${id}.processed`);
    const after = await eventually(async () => {
      const answer = await cp('GET', `/accounts/${accountId}/messages/${id}`);
      const [d] = answer.body.deliveries as Body[];
      return (d?.attempts as Body[]).length === 2 && d?.status === 'succeeded' ? d : undefined;
    });
    expect((after.attempts as Body[]).map((a) => a.attempt)).toEqual([1, 2]);

    const log = await cp('GET', `/accounts/${accountId}/messages?status=processed&limit=1`);
    expect(log.body).toMatchObject({ data: [{ id, status: 'processed' }] });
    expect(problem(await cp('GET', `/accounts/${accountId}/messages?limit=1000`))).toEqual({ status: 400, code: 'invalid_field' });

    expect(problem(await cp('POST', `/accounts/${accountId}/messages/${id}/deliveries/wh_nope.message.failed/resend`))).toEqual({
      status: 404,
      code: 'delivery_not_found',
    });
    expect(problem(await cp('GET', `/accounts/${accountId}/messages/msg_01JD8W7K2M4N6P8Q0R2S4T6V8X`))).toEqual({
      status: 404,
      code: 'message_not_found',
    });
    // Another account's message is absent.
    const other = await platform.accountService.createAccount({ name: 'other', plan: 'free' });
    expect(problem(await cp('GET', `/accounts/${other.accountId}/messages/${id}`))).toEqual({ status: 404, code: 'message_not_found' });
  });

  it('exercised every Webhooks and Messages operation and their codes', () => {
    const ours = Object.entries(validator.document.paths).flatMap(([template, item]) =>
      (['get', 'post', 'delete'] as const)
        .filter((m) => ((item as Record<string, { tags?: string[] }>)[m]?.tags ?? []).some((t) => t === 'Webhooks' || t === 'Messages'))
        .map((m) => `${m.toUpperCase()} ${template}`),
    );
    expect(ours.length).toBeGreaterThanOrEqual(8);
    expect(ours.filter((op) => !exercised.has(op))).toEqual([]);
    for (const code of ['invalid_url', 'invalid_events', 'webhook_not_found', 'webhook_limit_reached', 'webhook_disabled', 'message_not_found', 'delivery_not_found', 'invalid_field']) {
      expect(codes.has(code), code).toBe(true);
    }
  });
});
