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
  /** removeEndpoint, setSecrets, disable: false when there was no such (enabled) endpoint. */
  removeEndpoint(accountId: string, webhookId: string): Promise<boolean>;
  setSecrets(accountId: string, webhookId: string, secrets: readonly SigningSecret[]): Promise<boolean>;
  /** Records a failed attempt's time unless one is already there; answers the failing streak's start. */
  markFailing(accountId: string, webhookId: string, atMs: number): Promise<number | undefined>;
  clearFailing(accountId: string, webhookId: string): Promise<void>;
  disable(accountId: string, webhookId: string, at: string, reason: string): Promise<boolean>;

  /** Takes attempt `job.attempt + 1`: true when no other job took it (or left it unrecorded for `staleAfterMs`). */
  claimAttempt(job: DeliveryJob, url: string, nowMs: number, staleAfterMs: number): Promise<boolean>;
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

export interface DeliveryQueue {
  /** Rejects unless all are on the queue. */
  enqueueAll(jobs: readonly DeliveryJob[]): Promise<void>;
  enqueueLater(job: DeliveryJob, delaySeconds: number): Promise<void>;
}

/** Who a message belongs to and how long it is kept: a delivery record lives as long as its message. */
export interface MessageOwnership {
  ownerOf(messageId: string): Promise<{ readonly accountId: string; readonly expiresAt: number } | undefined>;
}
