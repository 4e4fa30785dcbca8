/** Lifecycle of a message: queued → processed, or failed once dead-lettered. */
export type MessageStatus = 'queued' | 'processed' | 'failed';

export interface MessageRecord {
  readonly id: string;
  readonly accountId: string;
  readonly keyId: string;
  readonly message: string;
  readonly status: MessageStatus;
  readonly createdAt: string;
  readonly processedAt?: string;
  readonly failedAt?: string;
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

/** The public representation (interface document, "Message"). */
export function toPublicMessage(record: MessageRecord) {
  return {
    id: record.id,
    message: record.message,
    status: record.status,
    createdAt: record.createdAt,
    ...(record.processedAt ? { processedAt: record.processedAt } : {}),
    ...(record.failedAt ? { failedAt: record.failedAt } : {}),
  };
}

export const MESSAGE_ID_PATTERN = /^msg_[0-9A-HJKMNP-TV-Z]{26}$/;
