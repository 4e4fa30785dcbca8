import type { MessageEnvelope, MessageRecord, MessageStatus } from './message.js';
import type { JsonValue } from './processor.js';

export interface MessageQueue {
  send(envelope: MessageEnvelope): Promise<void>;
}

/** A batch's envelopes (SendMessageBatch, 10 at a time, side by side); rejects unless all are enqueued. */
export interface MessageBatchQueue {
  sendAll(envelopes: readonly MessageEnvelope[]): Promise<void>;
}

/** A batch's records (BatchWriteItem, 25 at a time, side by side); rejects unless all are written. */
export interface MessageBatchStore {
  createAll(records: readonly MessageRecord[]): Promise<void>;
  /** Compensation for a batch not accepted: answers the ids the worker had already taken, which stay. */
  removeAll(ids: readonly string[]): Promise<readonly string[]>;
}

/** A transition's result; `before` and `after` are set when this call made it (`updated`). */
export interface Transition {
  readonly result: 'updated' | 'already_done' | 'missing';
  readonly before?: Pick<MessageRecord, 'accountId' | 'keyId' | 'createdAt' | 'status'>;
  readonly after?: MessageRecord;
}

/** What one ended attempt of the processor writes on the record. */
export interface AttemptRecord {
  /** The record's attempt count after this one (absent: unchanged, e.g. a poison envelope). */
  readonly attempts?: number;
  readonly result?: JsonValue;
  /** The sanitized error (sanitize-error.ts). */
  readonly lastError?: string;
}

/** One page of an account's messages, newest first; `next` is the index's LastEvaluatedKey. */
export interface MessagePage {
  readonly records: readonly MessageRecord[];
  readonly next?: Readonly<Record<string, unknown>>;
}

export interface MessagePageQuery {
  readonly accountId: string;
  readonly status?: MessageStatus;
  readonly limit: number;
  readonly startAfter?: Readonly<Record<string, unknown>>;
}

export interface MessageStore {
  create(record: MessageRecord): Promise<void>;
  get(id: string): Promise<MessageRecord | undefined>;
  /** Compensation for a send not accepted: removes the record while queued; false when the worker took it. */
  remove(id: string): Promise<boolean>;
  /** queued|failed → processed, exactly once; `already_done` when it was processed before. */
  markProcessed(id: string, at: string, attempt?: AttemptRecord): Promise<Transition>;
  /** queued|failed (a redriven message that failed again) → failed. */
  markFailed(id: string, at: string, attempt?: AttemptRecord): Promise<Transition>;
  /** A failed attempt that will be retried, on a record not yet final. */
  recordFailedAttempt(id: string, attempt: { readonly attempts: number; readonly lastError: string }): Promise<void>;
  listByAccount(query: MessagePageQuery): Promise<MessagePage>;
}

/** Postpones a failed SQS record's next delivery (ChangeMessageVisibility): the backoff. */
export interface MessageRetries {
  postpone(receiptHandle: string, seconds: number): Promise<void>;
}

/** A stored idempotent request: the body fingerprint and the response it got. */
export interface IdempotencyEntry {
  readonly id: string;
  readonly requestHash: string;
  readonly messageId: string;
  readonly statusCode: number;
  readonly responseBody: string;
  readonly location: string;
  readonly createdAtMs: number;
  /** DynamoDB TTL (epoch seconds); also checked on read, because expiry is lazy. */
  readonly expiresAt: number;
}

export interface IdempotencyStore {
  /** Claims the key; returns the existing live entry instead when there is one. */
  claim(
    entry: IdempotencyEntry,
    nowMs: number,
  ): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyEntry }>;
  /** Replaces a stale claim (its request never completed) if it is still the one we saw. */
  takeOver(stale: IdempotencyEntry, entry: IdempotencyEntry): Promise<boolean>;
  release(id: string, messageId: string): Promise<void>;
}
