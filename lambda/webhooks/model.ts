import type { components } from '../../contracts/openapi/control-api.js';

type Schemas = components['schemas'];

export const WEBHOOK_EVENT_TYPES = ['message.processed', 'message.failed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** The event `POST …/{webhookId}/test` sends; not subscribable. */
export const TEST_EVENT_TYPE = 'webhook.test';
export type DeliveredEventType = WebhookEventType | typeof TEST_EVENT_TYPE;

export type WebhookStatus = 'enabled' | 'disabled';

/** A signing secret; an old one keeps signing until `expiresAt` (epoch ms) after a rotation. */
export interface SigningSecret {
  readonly secret: string;
  readonly expiresAt?: number;
}

export interface WebhookEndpoint {
  readonly id: string;
  readonly accountId: string;
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  readonly status: WebhookStatus;
  readonly createdAt: string;
  /** Newest first. */
  readonly secrets: readonly SigningSecret[];
  /** Epoch ms of the first failed attempt since the last success; absent while deliveries succeed. */
  readonly failingSince?: number;
  readonly disabledAt?: string;
  readonly disabledReason?: string;
}

/** What owners see of an endpoint: never its secrets. */
export type WebhookView = Schemas['Webhook'];

export function toWebhookView(endpoint: WebhookEndpoint): WebhookView {
  const { accountId: _accountId, secrets: _secrets, failingSince, events, ...view } = endpoint;
  const failing = failingSince !== undefined ? { failingSince: new Date(failingSince).toISOString() } : {};
  return { ...view, events: [...events], ...failing };
}

/** One event for one endpoint, on the delivery queue; it runs attempt `attempt + 1` only (docs/webhooks.md, "How it works"). */
export interface DeliveryJob {
  readonly v: 1;
  readonly accountId: string;
  readonly webhookId: string;
  /** The `webhook-id` header: the same on every attempt of this event. */
  readonly eventId: string;
  readonly type: DeliveredEventType;
  /** Partition of the delivery record: `message#<id>`, or `webhook#<id>` for test events. */
  readonly subject: string;
  /** The signed body, fixed when the event happened: `{type, timestamp, data}`. */
  readonly payload: string;
  readonly attempt: number;
  /** Attempts made in this series (a re-send starts a new one); picks the next delay. */
  readonly retry?: number;
  /** Epoch ms when this attempt is due. */
  readonly dueAt: number;
  readonly firstAttemptAt?: number;
  /** TTL (epoch s) of the delivery record: the message's. */
  readonly expiresAt: number;
}

/** One event to one endpoint, with every attempt made. */
export type Delivery = Schemas['WebhookDelivery'];
export type DeliveryAttempt = Schemas['WebhookDeliveryAttempt'];
export type DeliveryStatus = Delivery['status'];

/** A delivery's id in the API: its endpoint and its event type, unique within one message. */
export const deliveryIdOf = (webhookId: string, type: DeliveredEventType) => `${webhookId}.${type}`;

/** The Standard Webhooks body: `{type, timestamp, data}`. */
export function eventPayload(type: DeliveredEventType, timestamp: string, data: unknown): string {
  return JSON.stringify({ type, timestamp, data });
}

/** `webhook-id` of a message's event: one per (message, type), whoever notifies it and how often. */
export const messageEventId = (messageId: string, type: WebhookEventType) =>
  `${messageId}.${type === 'message.processed' ? 'processed' : 'failed'}`;

export const messageSubject = (messageId: string) => `message#${messageId}`;
export const testSubject = (webhookId: string) => `webhook#${webhookId}`;
