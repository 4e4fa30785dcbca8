import { type Api, at } from '../../api';
import type { Schemas } from '../../types';

// The control API's webhook and message calls (openapi/control-api.yaml, tags Webhooks and Messages).
export type WebhookEventType = Schemas['WebhookEventType'];
export type Webhook = Schemas['Webhook'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type MessageStatus = Schemas['AccountMessage']['status'];

/** The Messages API's `Message` and its deliveries: the control API's document names only some of its fields. */
type AccountMessage = Schemas['AccountMessage'] & {
  readonly processedAt?: string;
  readonly failedAt?: string;
  readonly attempts?: number;
  readonly result?: unknown;
  readonly lastError?: string;
};

export const webhooksApi = {
  list: (api: Api, accountId: string) =>
    api.unwrap(api.client.GET('/accounts/{accountId}/webhooks', at({ accountId }))).then((r) => r.webhooks),
  create: (api: Api, accountId: string, body: { url: string; events: WebhookEventType[] }) =>
    api.unwrap(api.client.POST('/accounts/{accountId}/webhooks', { ...at({ accountId }), body })),
  remove: (api: Api, accountId: string, webhookId: string) =>
    api.unwrap(api.client.DELETE('/accounts/{accountId}/webhooks/{webhookId}', at({ accountId, webhookId }))),
  rotate: (api: Api, accountId: string, webhookId: string) =>
    api.unwrap(api.client.POST('/accounts/{accountId}/webhooks/{webhookId}/rotate-secret', at({ accountId, webhookId }))),
  test: (api: Api, accountId: string, webhookId: string) =>
    api.unwrap(api.client.POST('/accounts/{accountId}/webhooks/{webhookId}/test', at({ accountId, webhookId }))),
};

export const messagesApi = {
  /** The message log, newest first (the Messages API's `GET /messages` for the signed-in owner). */
  list: (api: Api, accountId: string, query: { status?: MessageStatus; cursor?: string }) =>
    api.unwrap(api.client.GET('/accounts/{accountId}/messages', {
      params: { path: { accountId }, query: { limit: 50, ...query } },
    })),
  get: (api: Api, accountId: string, messageId: string): Promise<AccountMessage> =>
    api.unwrap(api.client.GET('/accounts/{accountId}/messages/{messageId}', at({ accountId, messageId }))),
  resend: (api: Api, accountId: string, messageId: string, deliveryId: string) =>
    api.unwrap(api.client.POST('/accounts/{accountId}/messages/{messageId}/deliveries/{deliveryId}/resend', {
      params: { path: { accountId, messageId, deliveryId } },
    })),
};
