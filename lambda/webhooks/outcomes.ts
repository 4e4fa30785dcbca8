import type { MessageOutcomes } from '../../contracts/messages.js';
import { type Clock, nowIso } from '../shared/clock.js';
import { eventPayload, type DeliveryJob, messageEventId, messageSubject } from './model.js';
import type { DeliveryQueue, MessageOwnership, WebhookStore } from './ports.js';

/** The worker's outcomes (docs/webhooks.md, "How it works"); rejects when the jobs could not be enqueued, so the worker retries. */
export function createWebhookOutcomes(deps: {
  readonly store: Pick<WebhookStore, 'listEndpoints'>;
  readonly queue: Pick<DeliveryQueue, 'enqueueAll'>;
  readonly messages: MessageOwnership;
  readonly clock: Clock;
}): MessageOutcomes {
  return {
    async notify(type, message) {
      // The public message carries no account: its record does, and its TTL (a delivery is kept as long).
      const owner = await deps.messages.ownerOf(message.id);
      if (!owner) return;
      const endpoints = (await deps.store.listEndpoints(owner.accountId)).filter(
        (endpoint) => endpoint.status === 'enabled' && endpoint.events.includes(type),
      );
      if (endpoints.length === 0) return;
      // The event's time is the transition's, so a repeated notify signs the very same body.
      const timestamp = (type === 'message.processed' ? message.processedAt : message.failedAt) ?? nowIso(deps.clock);
      const payload = eventPayload(type, timestamp, message);
      const jobs: DeliveryJob[] = endpoints.map((endpoint) => ({
        v: 1,
        accountId: owner.accountId,
        webhookId: endpoint.id,
        eventId: messageEventId(message.id, type),
        type,
        subject: messageSubject(message.id),
        payload,
        attempt: 0,
        dueAt: deps.clock.now(),
        expiresAt: owner.expiresAt,
      }));
      await deps.queue.enqueueAll(jobs);
    },
  };
}
