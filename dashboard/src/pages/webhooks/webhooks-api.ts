import type { Api } from '../../api';

/**
 * The control API's webhook and message-page calls (openapi/control-api.yaml, tags Webhooks and
 * Messages), in one small module so that they can move to the generated client in one place.
 */
export type WebhookEventType = 'message.processed' | 'message.failed';

export interface Webhook {
  readonly id: string;
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  readonly status: 'enabled' | 'disabled';
  readonly createdAt: string;
  readonly failingSince?: string;
  readonly disabledAt?: string;
  readonly disabledReason?: string;
}

export interface DeliveryAttempt {
  readonly attempt: number;
  readonly at: string;
  readonly durationMs: number;
  readonly statusCode?: number;
  readonly error?: string;
}

export interface WebhookDelivery {
  readonly id: string;
  readonly webhookId: string;
  readonly url: string;
  readonly eventId: string;
  readonly type: string;
  readonly status: 'pending' | 'succeeded' | 'failed' | 'abandoned';
  readonly attempts: readonly DeliveryAttempt[];
  readonly nextAttemptAt?: string;
  readonly reason?: string;
}

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

const seg = encodeURIComponent;
const hooks = (accountId: string) => `/accounts/${seg(accountId)}/webhooks`;

export const webhooksApi = {
  list: async (api: Api, accountId: string) =>
    (await api.request<{ webhooks: Webhook[] }>('GET', hooks(accountId))).webhooks,
  create: (api: Api, accountId: string, input: { url: string; events: readonly WebhookEventType[] }) =>
    api.request<{ webhook: Webhook; secret: string }>('POST', hooks(accountId), input),
  remove: (api: Api, accountId: string, webhookId: string) =>
    api.request<{ id: string; removed: true }>('DELETE', `${hooks(accountId)}/${seg(webhookId)}`),
  rotate: (api: Api, accountId: string, webhookId: string) =>
    api.request<{ webhook: Webhook; secret: string; previousSecretExpiresAt: string }>(
      'POST',
      `${hooks(accountId)}/${seg(webhookId)}/rotate-secret`,
    ),
  test: (api: Api, accountId: string, webhookId: string) =>
    api.request<{ eventId: string; type: string }>('POST', `${hooks(accountId)}/${seg(webhookId)}/test`),
};

export const messagesApi = {
  list: (api: Api, accountId: string, query: { status?: string; cursor?: string; limit?: number }) => {
    const params = new URLSearchParams();
    if (query.status) params.set('status', query.status);
    if (query.cursor) params.set('cursor', query.cursor);
    params.set('limit', String(query.limit ?? 50));
    return api.request<MessagePage>('GET', `/accounts/${seg(accountId)}/messages?${params.toString()}`);
  },
  get: (api: Api, accountId: string, messageId: string) =>
    api.request<AccountMessage>('GET', `/accounts/${seg(accountId)}/messages/${seg(messageId)}`),
  resend: (api: Api, accountId: string, messageId: string, deliveryId: string) =>
    api.request<WebhookDelivery>(
      'POST',
      `/accounts/${seg(accountId)}/messages/${seg(messageId)}/deliveries/${seg(deliveryId)}/resend`,
    ),
};
