import type { Delivery, DeliveryAttempt, DeliveryJob, DeliveryStatus, SigningSecret, WebhookEndpoint } from './model.js';

/** The stored delivery: what the API shows, plus what a re-send needs. */
export interface StoredDelivery extends Delivery {
  readonly accountId: string;
  readonly subject: string;
  readonly payload: string;
  /** Attempts claimed so far (one more than recorded while an attempt is under way). */
  readonly attemptsStarted: number;
  readonly expiresAt: number;
}

export interface WebhookStore {
  createEndpoint(endpoint: WebhookEndpoint): Promise<void>;
  getEndpoint(accountId: string, webhookId: string): Promise<WebhookEndpoint | undefined>;
  listEndpoints(accountId: string): Promise<WebhookEndpoint[]>;
  /** False when there was no such endpoint. */
  removeEndpoint(accountId: string, webhookId: string): Promise<boolean>;
  /** False when there was no such endpoint. */
  setSecrets(accountId: string, webhookId: string, secrets: readonly SigningSecret[]): Promise<boolean>;
  /** Records a failed attempt's time unless one is already there; answers the failing streak's start. */
  markFailing(accountId: string, webhookId: string, atMs: number): Promise<number | undefined>;
  clearFailing(accountId: string, webhookId: string): Promise<void>;
  /** Disables an enabled endpoint; false when it was not enabled (or is gone). */
  disable(accountId: string, webhookId: string, at: string, reason: string): Promise<boolean>;

  /**
   * Takes attempt `job.attempt + 1` of a delivery: true when no other job took it. A claim left
   * without its recorded attempt for longer than `staleAfterMs` (its function died) may be taken over.
   */
  claimAttempt(job: DeliveryJob, url: string, nowMs: number, staleAfterMs: number): Promise<boolean>;
  /** Appends an attempt and sets the delivery's status (and the next attempt's time, when one is due). */
  recordAttempt(
    job: DeliveryJob,
    attempt: DeliveryAttempt,
    outcome: { readonly status: DeliveryStatus; readonly nextAttemptAt?: string; readonly reason?: string },
  ): Promise<void>;
  /** Ends a delivery without an attempt (its endpoint is gone or disabled). */
  abandon(job: DeliveryJob, url: string, reason: string): Promise<void>;
  getDelivery(subject: string, eventId: string, webhookId: string): Promise<StoredDelivery | undefined>;
  /** Every delivery of one subject (a message's, or a test event's endpoint). */
  listDeliveries(subject: string): Promise<StoredDelivery[]>;
}

/** The delivery queue: jobs wait up to SQS's delay maximum per hop. */
export interface DeliveryQueue {
  /** Enqueues jobs now (SendMessageBatch); rejects unless all are on the queue. */
  enqueueAll(jobs: readonly DeliveryJob[]): Promise<void>;
  /** Enqueues one job to become visible after `delaySeconds`. */
  enqueueLater(job: DeliveryJob, delaySeconds: number): Promise<void>;
}

/** Who a message belongs to and how long it is kept: a delivery record lives as long as its message. */
export interface MessageOwnership {
  ownerOf(messageId: string): Promise<{ readonly accountId: string; readonly expiresAt: number } | undefined>;
}
