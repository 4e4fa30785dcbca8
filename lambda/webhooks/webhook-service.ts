import { MAX_WEBHOOK_ENDPOINTS } from '../../contracts/webhooks.js';
import type { Clock } from '../shared/clock.js';
import { refuse } from '../shared/problem.js';
import { monotonicUlid } from '../shared/ulid.js';
import {
  type Delivery,
  type DeliveryJob,
  eventPayload,
  TEST_EVENT_TYPE,
  testSubject,
  toWebhookView,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
  type WebhookView,
  messageSubject,
} from './model.js';
import { type DeliveryNetworkPolicy, urlProblem } from './network-policy.js';
import type { DeliveryQueue, StoredDelivery, WebhookStore } from './ports.js';
import { newSigningSecret } from './signing.js';

/** How long an old secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export interface WebhookServiceDeps {
  readonly store: WebhookStore;
  readonly queue: Pick<DeliveryQueue, 'enqueueAll'>;
  readonly clock: Clock;
  readonly policy: DeliveryNetworkPolicy;
  readonly retentionDays: number;
}

const WEBHOOK_ID = /^wh_[0-9A-HJKMNP-TV-Z]{26}$/;

function parseEvents(value: unknown): WebhookEventType[] {
  if (value === undefined) return [...WEBHOOK_EVENT_TYPES];
  const known = new Set<string>(WEBHOOK_EVENT_TYPES);
  if (!Array.isArray(value) || value.length === 0 || !value.every((e) => typeof e === 'string' && known.has(e))) {
    throw refuse('invalid_events', `events must be a non-empty list of: ${WEBHOOK_EVENT_TYPES.join(', ')}.`, 400);
  }
  return WEBHOOK_EVENT_TYPES.filter((type) => value.includes(type));
}

/** What owners see of a delivery: not its bookkeeping. */
function toDeliveryView(delivery: StoredDelivery): Delivery {
  return {
    id: delivery.id,
    webhookId: delivery.webhookId,
    url: delivery.url,
    eventId: delivery.eventId,
    type: delivery.type,
    status: delivery.status,
    attempts: delivery.attempts,
    ...(delivery.nextAttemptAt ? { nextAttemptAt: delivery.nextAttemptAt } : {}),
    ...(delivery.reason ? { reason: delivery.reason } : {}),
  };
}

/** Owners' webhook endpoints (control API, dashboard, CLI) and their deliveries. */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  async create(
    accountId: string,
    body: { url?: unknown; events?: unknown },
  ): Promise<{ webhook: WebhookView; secret: string }> {
    const problem = urlProblem(body.url, this.deps.policy);
    if (problem) throw refuse('invalid_url', problem, 400);
    const events = parseEvents(body.events);
    const existing = await this.deps.store.listEndpoints(accountId);
    if (existing.length >= MAX_WEBHOOK_ENDPOINTS) {
      throw refuse('webhook_limit_reached', `An account has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; remove one first.`, 409);
    }
    const now = this.deps.clock.now();
    const secret = newSigningSecret();
    const endpoint = {
      id: `wh_${monotonicUlid(now)}`,
      accountId,
      url: body.url as string,
      events,
      status: 'enabled' as const,
      createdAt: new Date(now).toISOString(),
      secrets: [{ secret }],
    };
    await this.deps.store.createEndpoint(endpoint);
    return { webhook: toWebhookView(endpoint), secret };
  }

  async list(accountId: string): Promise<WebhookView[]> {
    const endpoints = await this.deps.store.listEndpoints(accountId);
    return endpoints.map(toWebhookView).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async remove(accountId: string, webhookId: string): Promise<{ id: string; removed: true }> {
    if (!WEBHOOK_ID.test(webhookId) || !(await this.deps.store.removeEndpoint(accountId, webhookId))) {
      throw notFound(webhookId);
    }
    return { id: webhookId, removed: true };
  }

  /** A new secret; the current one keeps signing (beside it) for ROTATION_OVERLAP_MS. */
  async rotateSecret(
    accountId: string,
    webhookId: string,
  ): Promise<{ webhook: WebhookView; secret: string; previousSecretExpiresAt: string }> {
    const endpoint = await this.endpoint(accountId, webhookId);
    const now = this.deps.clock.now();
    const expiresAt = now + ROTATION_OVERLAP_MS;
    const [current] = endpoint.secrets.filter((s) => s.expiresAt === undefined);
    const secret = newSigningSecret();
    const kept = endpoint.secrets.filter((s) => s.expiresAt !== undefined && s.expiresAt > now);
    const secrets = [{ secret }, ...(current ? [{ secret: current.secret, expiresAt }] : []), ...kept];
    if (!(await this.deps.store.setSecrets(accountId, webhookId, secrets))) throw notFound(webhookId);
    return { webhook: toWebhookView(endpoint), secret, previousSecretExpiresAt: new Date(expiresAt).toISOString() };
  }

  /** Sends a `webhook.test` event to one endpoint, through the same queue, signing and retries. */
  async sendTest(accountId: string, webhookId: string): Promise<{ eventId: string; type: string }> {
    await this.endpoint(accountId, webhookId, 'enabled');
    const now = this.deps.clock.now();
    const eventId = `evt_${monotonicUlid(now)}`;
    const timestamp = new Date(now).toISOString();
    const job: DeliveryJob = {
      v: 1,
      accountId,
      webhookId,
      eventId,
      type: TEST_EVENT_TYPE,
      subject: testSubject(webhookId),
      payload: eventPayload(TEST_EVENT_TYPE, timestamp, { webhookId, message: 'A test event from the Messages platform.' }),
      attempt: 0,
      dueAt: now,
      expiresAt: Math.floor(now / 1000) + this.deps.retentionDays * 86_400,
    };
    await this.deps.queue.enqueueAll([job]);
    return { eventId, type: TEST_EVENT_TYPE };
  }

  /** The test events' deliveries of one endpoint. */
  async testDeliveries(accountId: string, webhookId: string): Promise<Delivery[]> {
    await this.endpoint(accountId, webhookId);
    return this.deliveries(accountId, testSubject(webhookId));
  }

  /** A message's deliveries, to every endpoint, with their attempts. */
  messageDeliveries(accountId: string, messageId: string): Promise<Delivery[]> {
    return this.deliveries(accountId, messageSubject(messageId));
  }

  private async deliveries(accountId: string, subject: string): Promise<Delivery[]> {
    const deliveries = await this.deps.store.listDeliveries(subject);
    return deliveries.filter((d) => d.accountId === accountId).map(toDeliveryView);
  }

  /**
   * Sends a message's delivery again, now, with a fresh retry series. A retry still scheduled and
   * this re-send claim the same attempt: one of them makes it, the other is dropped.
   */
  async resend(accountId: string, messageId: string, deliveryId: string): Promise<Delivery> {
    const deliveries = await this.deps.store.listDeliveries(messageSubject(messageId));
    const delivery = deliveries.find((d) => d.id === deliveryId && d.accountId === accountId);
    if (!delivery) throw refuse('delivery_not_found', `No delivery ${deliveryId} of message ${messageId}.`, 404);
    await this.endpoint(accountId, delivery.webhookId, 'enabled');
    const now = this.deps.clock.now();
    await this.deps.queue.enqueueAll([
      {
        v: 1,
        accountId,
        webhookId: delivery.webhookId,
        eventId: delivery.eventId,
        type: delivery.type,
        subject: delivery.subject,
        payload: delivery.payload,
        attempt: delivery.attemptsStarted,
        retry: 0,
        dueAt: now,
        expiresAt: delivery.expiresAt,
      },
    ]);
    return toDeliveryView(delivery);
  }

  /** The endpoint, or a 404; with `enabled`, a 409 when it is disabled. */
  private async endpoint(accountId: string, webhookId: string, enabled?: 'enabled') {
    const endpoint = WEBHOOK_ID.test(webhookId) ? await this.deps.store.getEndpoint(accountId, webhookId) : undefined;
    if (!endpoint) throw notFound(webhookId);
    if (enabled && endpoint.status !== 'enabled') {
      throw refuse('webhook_disabled', `Webhook ${webhookId} is disabled: ${endpoint.disabledReason ?? ''}`, 409);
    }
    return endpoint;
  }
}

const notFound = (webhookId: string) => refuse('webhook_not_found', `No webhook ${webhookId}.`, 404);
