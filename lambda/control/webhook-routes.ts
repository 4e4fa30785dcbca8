import { MESSAGE_ID_PATTERN, toPublicMessage } from '../messages/message.js';
import type { MessageStore } from '../messages/ports.js';
import type { WebhookService } from '../webhooks/index.js';
import { WebhookError } from '../webhooks/index.js';

/** A message as owners see it (the Messages API's `Message`), from the messages capability. */
export interface OwnerMessage {
  readonly id: string;
  readonly status: string;
  readonly [field: string]: unknown;
}

/** What the dashboard's message pages read: one account's messages. */
export interface OwnerMessageLog {
  /** The account's message, or undefined when it is not (or no longer) there. */
  get(accountId: string, messageId: string): Promise<OwnerMessage | undefined>;
  /**
   * Newest first, `limit` 1–100, an opaque cursor; undefined until the log exists on this deployment.
   * Invalid input is the log's own 400.
   */
  list?(
    accountId: string,
    query: { status?: string; limit?: string; cursor?: string },
  ): Promise<{ data: OwnerMessage[]; nextCursor: string | null }>;
}

export interface WebhookRouteContext {
  readonly params: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown>;
  readonly query: Readonly<Record<string, string>>;
}

/** A route of an owner's account (`{accountId}` in the path; the router checks who may call it). */
export interface AccountRoute {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly handler: (context: WebhookRouteContext) => Promise<{ status: number; body: unknown }>;
}

const messageListRoute = (list: NonNullable<OwnerMessageLog['list']>): AccountRoute => ({
  method: 'GET',
  path: '/accounts/{accountId}/messages',
  handler: async ({ params, query }) => ({ status: 200, body: await list(params.accountId as string, query) }),
});

const MESSAGE_NOT_FOUND = (id: string) => new WebhookError(404, 'message_not_found', `No message ${id} in this account.`);

/**
 * The control API's webhook routes (docs/webhooks.md) and the dashboard's message pages, under
 * `/accounts/{accountId}`. Refusals are `WebhookError`s (status, code), answered as problem documents.
 */
export function webhookRoutes(webhooks: WebhookService, messages: OwnerMessageLog): AccountRoute[] {
  const account = (p: Readonly<Record<string, string>>) => p.accountId as string;
  const hook = (p: Readonly<Record<string, string>>) => p.webhookId as string;
  const base = '/accounts/{accountId}/webhooks';
  return [
    {
      method: 'POST',
      path: base,
      handler: async ({ params, body }) => ({ status: 201, body: await webhooks.create(account(params), body) }),
    },
    {
      method: 'GET',
      path: base,
      handler: async ({ params }) => ({ status: 200, body: { webhooks: await webhooks.list(account(params)) } }),
    },
    {
      method: 'DELETE',
      path: `${base}/{webhookId}`,
      handler: async ({ params }) => ({ status: 200, body: await webhooks.remove(account(params), hook(params)) }),
    },
    {
      method: 'POST',
      path: `${base}/{webhookId}/rotate-secret`,
      handler: async ({ params }) => ({
        status: 200,
        body: await webhooks.rotateSecret(account(params), hook(params)),
      }),
    },
    {
      method: 'POST',
      path: `${base}/{webhookId}/test`,
      handler: async ({ params }) => ({ status: 202, body: await webhooks.sendTest(account(params), hook(params)) }),
    },
    {
      method: 'GET',
      path: `${base}/{webhookId}/test-deliveries`,
      handler: async ({ params }) => ({
        status: 200,
        body: { deliveries: await webhooks.testDeliveries(account(params), hook(params)) },
      }),
    },
    // Only where the message log exists (an index on account and time).
    ...(messages.list ? [messageListRoute(messages.list)] : []),
    {
      method: 'GET',
      path: '/accounts/{accountId}/messages/{messageId}',
      handler: async ({ params }) => {
        const id = params.messageId as string;
        const [message, deliveries] = await Promise.all([
          messages.get(account(params), id),
          webhooks.messageDeliveries(account(params), id),
        ]);
        if (!message) throw MESSAGE_NOT_FOUND(id);
        return { status: 200, body: { ...message, deliveries } };
      },
    },
    {
      method: 'POST',
      path: '/accounts/{accountId}/messages/{messageId}/deliveries/{deliveryId}/resend',
      handler: async ({ params }) => ({
        status: 202,
        body: await webhooks.resend(account(params), params.messageId as string, params.deliveryId as string),
      }),
    },
  ];
}

/** The message pages over the messages table: one account's message by id (others are absent). */
export function messageLogOf(store: Pick<MessageStore, 'get'>): OwnerMessageLog {
  return {
    async get(accountId, messageId) {
      if (!MESSAGE_ID_PATTERN.test(messageId)) return undefined;
      const record = await store.get(messageId);
      return record && record.accountId === accountId ? toPublicMessage(record) : undefined;
    },
  };
}
