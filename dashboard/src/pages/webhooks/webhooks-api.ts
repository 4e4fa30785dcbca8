import type { Api } from '../../api';
import type { components } from '../../../../contracts/openapi/control-api';

/**
 * The control API's webhook and message-page calls (openapi/control-api.yaml, tags Webhooks and
 * Messages) through the dashboard's typed openapi-fetch client, in one small module.
 */
type Schemas = components['schemas'];
export type WebhookEventType = Schemas['WebhookEventType'];
export type Webhook = Schemas['Webhook'];
export type DeliveryAttempt = Schemas['WebhookDeliveryAttempt'];
export type WebhookDelivery = Schemas['WebhookDelivery'];

/** A message as the dashboard shows it: the Messages API's fields, and its deliveries on its own page. */
export interface AccountMessage {
  readonly id: string;
  readonly message: string;
  readonly status: 'queued' | 'processed' | 'failed';
  readonly createdAt: string;
  readonly processedAt?: string;
  readonly failedAt?: string;
  readonly attempts?: number;
  readonly result?: unknown;
  readonly lastError?: string;
  readonly deliveries?: readonly WebhookDelivery[];
}

export interface MessagePage {
  readonly data: readonly AccountMessage[];
  readonly nextCursor: string | null;
}

const path = (accountId: string) => ({ params: { path: { accountId } } });
const hook = (accountId: string, webhookId: string) => ({ params: { path: { accountId, webhookId } } });

export const webhooksApi = {
  list: (api: Api, accountId: string) =>
    api.unwrap(api.client.GET('/accounts/{accountId}/webhooks', path(accountId))).then((r) => r.webhooks),
  create: (api: Api, accountId: string, input: { url: string; events: readonly WebhookEventType[] }) =>
    api.unwrap(api.client.POST('/accounts/{accountId}/webhooks', {
      ...path(accountId),
      body: { url: input.url, events: [...input.events] },
    })),
  remove: (api: Api, accountId: string, webhookId: string) =>
    api.unwrap(api.client.DELETE('/accounts/{accountId}/webhooks/{webhookId}', hook(accountId, webhookId))),
  rotate: (api: Api, accountId: string, webhookId: string) =>
    api.unwrap(api.client.POST('/accounts/{accountId}/webhooks/{webhookId}/rotate-secret', hook(accountId, webhookId))),
  test: (api: Api, accountId: string, webhookId: string) =>
    api.unwrap(api.client.POST('/accounts/{accountId}/webhooks/{webhookId}/test', hook(accountId, webhookId))),
};

export const messagesApi = {
  /** The message log, newest first (the Messages API's `GET /messages` for the signed-in owner). */
  list: (api: Api, accountId: string, query: { status?: AccountMessage['status']; cursor?: string; limit?: number }) =>
    api.unwrap(api.client.GET('/accounts/{accountId}/messages', {
      params: { path: { accountId }, query: { limit: query.limit ?? 50, ...query } },
    })) as Promise<MessagePage>,
  get: (api: Api, accountId: string, messageId: string) =>
    api.unwrap(api.client.GET('/accounts/{accountId}/messages/{messageId}', {
      params: { path: { accountId, messageId } },
    })) as Promise<AccountMessage>,
  resend: (api: Api, accountId: string, messageId: string, deliveryId: string) =>
    api.unwrap(api.client.POST('/accounts/{accountId}/messages/{messageId}/deliveries/{deliveryId}/resend', {
      params: { path: { accountId, messageId, deliveryId } },
    })),
};
