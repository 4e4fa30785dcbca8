import type { components } from '../../contracts/openapi/control-api.js';
import { ACCOUNT_FLAG, accountParams, ON_ACCOUNT, type Command, type Flag, str, type Values } from '../command.js';
import { keyValues, table } from '../format.js';
import type { WebhookView } from '../operator-client.js';

const WEBHOOK_FLAG: Flag = ['--webhook WEBHOOK_ID', 'the endpoint id (wh_…), as webhooks list shows it'];
const ON_WEBHOOK = { required: ['account', 'webhook'], flags: [ACCOUNT_FLAG, WEBHOOK_FLAG] };
const SECRET_NOTE = 'Store this signing secret now: it will not be shown again.\n';
const webhookParams = (values: Values) => accountParams(values, { webhookId: str(values, 'webhook') });

function webhookText(webhook: WebhookView): string {
  return keyValues([
    ['webhook', webhook.id],
    ['url', webhook.url],
    ['events', webhook.events.join(', ')],
    ['status', webhook.status],
    ['created', webhook.createdAt],
    ['failing since', webhook.failingSince],
    ['disabled', webhook.disabledAt],
    ['reason', webhook.disabledReason],
  ]);
}

function webhooksTable(webhooks: readonly WebhookView[]): string {
  if (webhooks.length === 0) return 'No webhook endpoints.\n';
  return table(
    ['ID', 'URL', 'EVENTS', 'STATUS', 'CREATED', 'DISABLED REASON'],
    webhooks.map((w) => [w.id, w.url, w.events.join(','), w.status, w.createdAt, w.disabledReason]),
  );
}

/** `webhooks list|add|remove|rotate|test` (docs/webhooks.md): an account's endpoints, on the local control API. */
export const WEBHOOK_COMMANDS: readonly Command[] = [
  {
    words: ['webhooks', 'list'],
    summary: 'List the webhook endpoints of an account (never their secrets)',
    ...ON_ACCOUNT,
    examples: ['webhooks list --account acct_demo_pro'],
    async run(ctx, values) {
      const webhooks = await ctx.webhooks().list('webhooks', (api) =>
        api.GET('/accounts/{accountId}/webhooks', accountParams(values)));
      ctx.output({ webhooks }, webhooksTable(webhooks));
    },
  },
  {
    words: ['webhooks', 'add'],
    summary: 'Add a webhook endpoint; its signing secret is shown this once',
    required: ['account', 'endpoint'],
    flags: [
      ACCOUNT_FLAG,
      ['--endpoint URL', 'where events are POSTed (https on AWS; the local platform also takes http and loopback)'],
      ['--events LIST', 'message.processed,message.failed (default: both)'],
    ],
    examples: [
      'webhooks add --account acct_demo_pro --endpoint https://hooks.example.com/messages',
      'webhooks add --account acct_demo_pro --endpoint http://127.0.0.1:9000/hooks --events message.failed',
    ],
    async run(ctx, values) {
      const events = values.events === undefined ? undefined : str(values, 'events').split(',').map((e) => e.trim());
      const body = { url: str(values, 'endpoint'), events } as components['schemas']['CreateWebhookRequest'];
      const created = await ctx.webhooks().call((api) =>
        api.POST('/accounts/{accountId}/webhooks', { ...accountParams(values), body }));
      ctx.io.stderr.write(SECRET_NOTE);
      ctx.output(created, `Added webhook ${created.webhook.id}.\n${webhookText(created.webhook)}secret: ${created.secret}\n`);
    },
  },
  {
    words: ['webhooks', 'remove'],
    summary: 'Remove a webhook endpoint',
    ...ON_WEBHOOK,
    examples: ['webhooks remove --account acct_demo_pro --webhook wh_01JD8W7K2M4N6P8Q0R2S4T6V8X'],
    async run(ctx, values) {
      const removed = await ctx.webhooks().call((api) =>
        api.DELETE('/accounts/{accountId}/webhooks/{webhookId}', webhookParams(values)));
      ctx.output(removed, `Removed webhook ${removed.id}: it receives nothing more.\n`);
    },
  },
  {
    words: ['webhooks', 'rotate'],
    summary: 'Rotate the signing secret of an endpoint (the old one signs too for 24 h)',
    ...ON_WEBHOOK,
    examples: ['webhooks rotate --account acct_demo_pro --webhook wh_01JD8W7K2M4N6P8Q0R2S4T6V8X'],
    async run(ctx, values) {
      const rotated = await ctx.webhooks().call((api) =>
        api.POST('/accounts/{accountId}/webhooks/{webhookId}/rotate-secret', webhookParams(values)));
      ctx.io.stderr.write(SECRET_NOTE);
      ctx.output(
        rotated,
        `New secret for ${rotated.webhook.id}: ${rotated.secret}\n` +
        `The previous secret also signs until ${rotated.previousSecretExpiresAt}.\n`,
      );
    },
  },
  {
    words: ['webhooks', 'test'],
    summary: 'Send a signed webhook.test event to an endpoint',
    ...ON_WEBHOOK,
    examples: ['webhooks test --account acct_demo_pro --webhook wh_01JD8W7K2M4N6P8Q0R2S4T6V8X'],
    async run(ctx, values) {
      const sent = await ctx.webhooks().call((api) =>
        api.POST('/accounts/{accountId}/webhooks/{webhookId}/test', webhookParams(values)));
      ctx.output(sent, `Queued test event ${sent.eventId} (${sent.type}).\n`);
    },
  },
];
