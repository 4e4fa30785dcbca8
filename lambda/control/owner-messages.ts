import { listMessages, type MessageResource, type MessageStore, readAccountMessage } from '../messages/index.js';

/** A message as owners see it: the Messages API's `Message`. */
export type OwnerMessage = MessageResource;

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

/**
 * The message pages over the messages table, with the Messages API's own functions: one account's
 * message by id (another account's is absent), and its log (one Query per page on the account index).
 */
export function messageLogOf(store: Pick<MessageStore, 'get' | 'listByAccount'>): OwnerMessageLog {
  return {
    get: (accountId, messageId) =>
      readAccountMessage(accountId, messageId, { messages: store }).catch((error: unknown) => {
        if ((error as { status?: number }).status === 404) return undefined;
        throw error;
      }),
    list: async (accountId, query) => {
      const page = await listMessages(accountId, query, { messages: store });
      return { data: [...page.data], nextCursor: page.nextCursor };
    },
  };
}
