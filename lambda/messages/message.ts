import type { JsonValue, MessageResource, MessageStatus } from '../../contracts/messages.js';

export type { MessageResource, MessageStatus };

export const MESSAGE_STATUSES: readonly MessageStatus[] = ['queued', 'processed', 'failed'];

export interface MessageRecord {
  readonly id: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly message: string;
  readonly status: MessageStatus;
  readonly createdAt: string;
  readonly processedAt?: string;
  readonly failedAt?: string;
  /** Attempts of the processor that ended (failed or done); absent before the first. */
  readonly attempts?: number;
  /** What the processor returned (JSON, at most 4 KB serialized). */
  readonly result?: JsonValue;
  /** The last failed attempt's error: its message only, scrubbed of secrets, bounded. */
  readonly lastError?: string;
  /** DynamoDB TTL (epoch seconds). */
  readonly expiresAt: number;
}

/** What goes on the queue. `v` lets the worker refuse envelopes it does not understand. */
export interface MessageEnvelope {
  readonly v: 1;
  readonly id: string;
  readonly accountId: string;
  readonly createdAt: string;
}

/** A record's envelope: what the worker needs to find it again. */
export function envelopeOf(record: MessageRecord): MessageEnvelope {
  return { v: 1, id: record.id, accountId: record.accountId, createdAt: record.createdAt };
}

export function toMessageResource(record: MessageRecord): MessageResource {
  return {
    id: record.id,
    message: record.message,
    status: record.status,
    createdAt: record.createdAt,
    attempts: record.attempts ?? 0,
    ...(record.processedAt ? { processedAt: record.processedAt } : {}),
    ...(record.failedAt ? { failedAt: record.failedAt } : {}),
    ...(record.result !== undefined ? { result: record.result } : {}),
    ...(record.lastError ? { lastError: record.lastError } : {}),
  };
}

export const MESSAGE_ID_PATTERN = /^msg_[0-9A-HJKMNP-TV-Z]{26}$/;

/** A send's 202 (openapi/openapi.yaml, "AcceptedMessage"): nothing has run yet. */
export const toAcceptedMessage = (record: Pick<MessageRecord, 'id' | 'message' | 'createdAt'>) => ({
  id: record.id,
  message: record.message,
  status: 'queued',
  createdAt: record.createdAt,
});
