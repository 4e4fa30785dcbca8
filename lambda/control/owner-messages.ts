import { listMessages, type MessageResource, type MessageStore, readAccountMessage } from '../messages/index.js';

/** What the dashboard's message pages read: one account's messages, as the Messages API shows them. */
export type OwnerMessageLog = ReturnType<typeof messageLogOf>;

/** The message pages over the messages table, with the Messages API's own functions. */
export function messageLogOf(store: Pick<MessageStore, 'get' | 'listByAccount'>) {
  return {
    /** The account's message, or undefined when it is not (or no longer) there. */
    get: (accountId: string, messageId: string): Promise<MessageResource | undefined> =>
      readAccountMessage(accountId, messageId, { messages: store }).catch((error: unknown) => {
        if ((error as { status?: number }).status === 404) return undefined;
        throw error;
      }),
    /** Newest first, `limit` 1–100, an opaque cursor (invalid input is the log's own 400). */
    list: async (accountId: string, query: { status?: string; limit?: string; cursor?: string }) => {
      const page = await listMessages(accountId, query, { messages: store });
      return { data: [...page.data], nextCursor: page.nextCursor };
    },
  };
}
