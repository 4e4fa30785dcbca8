import { MESSAGE_ID_PATTERN, toPublicMessage } from '../messages/message.js';
import type { MessageStore } from '../messages/ports.js';

/** A message as owners see it (the Messages API's `Message`). */
export interface OwnerMessage {
  readonly id: string;
  readonly status: string;
  readonly [field: string]: unknown;
}

/** What the dashboard's message pages read: one account's messages. */
export interface OwnerMessageLog {
  /** The account's message, or undefined when it is not (or no longer) there. */
  get(accountId: string, messageId: string): Promise<OwnerMessage | undefined>;
  /**
   * Newest first, `limit` 1–100, an opaque cursor (invalid input is the log's own 400). Absent
   * where the message log (an index on account and time) does not exist: the route is then absent.
   */
  list?(
    accountId: string,
    query: { status?: string; limit?: string; cursor?: string },
  ): Promise<{ data: OwnerMessage[]; nextCursor: string | null }>;
}

/** The message pages over the messages table: one account's message by id (others are absent). */
export function messageLogOf(store: Pick<MessageStore, 'get'>): OwnerMessageLog {
  return {
    async get(accountId, messageId) {
      if (!MESSAGE_ID_PATTERN.test(messageId)) return undefined;
      const record = await store.get(messageId);
      return record && record.accountId === accountId ? toPublicMessage(record) : undefined;
    },
  };
}
