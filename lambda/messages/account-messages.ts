import { problems } from '../shared/problem.js';
import { MESSAGE_ID_PATTERN, MESSAGE_STATUSES, type MessageResource, type MessageStatus, toMessageResource } from './message.js';
import type { MessageStore } from './ports.js';

export const LIST_LIMIT = { min: 1, max: 100, default: 50 } as const;

/** The query of the message log (query-string values). */
export interface ListMessagesOptions {
  readonly status?: string;
  readonly limit?: string | number;
  readonly cursor?: string;
}

export interface MessageLogPage {
  readonly data: readonly MessageResource[];
  /** Pass as `cursor` for the next page; null on the last one. */
  readonly nextCursor: string | null;
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Where the page ended in the account index, and the filter it was made for. */
interface CursorContent {
  readonly v: 1;
  readonly id: string;
  readonly createdAt: string;
  readonly accountId: string;
  readonly status: MessageStatus | null;
}

const invalid = (field: 'status' | 'limit' | 'cursor', message: string) =>
  problems.badRequest('invalid_field', `Invalid query parameter "${field}": ${message}`, [{ field, message }]);

function parseStatus(value: string | undefined): MessageStatus | undefined {
  if (value === undefined || value === '') return undefined;
  if (!(MESSAGE_STATUSES as readonly string[]).includes(value)) {
    throw invalid('status', `must be one of ${MESSAGE_STATUSES.join(', ')}`);
  }
  return value as MessageStatus;
}

function parseLimit(value: string | number | undefined): number {
  if (value === undefined || value === '') return LIST_LIMIT.default;
  const text = String(value);
  const limit = /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
  if (!(limit >= LIST_LIMIT.min && limit <= LIST_LIMIT.max)) {
    throw invalid('limit', `must be a whole number from ${LIST_LIMIT.min} to ${LIST_LIMIT.max}`);
  }
  return limit;
}

/** Opaque to clients: the page's last index key, base64url JSON, bound to the account and the filter. */
export function encodeCursor(content: Omit<CursorContent, 'v'>): string {
  return Buffer.from(JSON.stringify({ v: 1, ...content }), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string, accountId: string, status: MessageStatus | undefined): CursorContent {
  const refused = () => invalid('cursor', 'is not a cursor this API returned for this account and status filter');
  if (cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refused();
  let content: Partial<CursorContent>;
  try {
    content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorContent>;
  } catch {
    throw refused();
  }
  const valid =
    typeof content === 'object' &&
    content !== null &&
    content.v === 1 &&
    typeof content.id === 'string' &&
    MESSAGE_ID_PATTERN.test(content.id) &&
    typeof content.createdAt === 'string' &&
    TIMESTAMP.test(content.createdAt) &&
    content.accountId === accountId &&
    (content.status ?? null) === (status ?? null);
  if (!valid) throw refused();
  return content as CursorContent;
}

/**
 * The message log of one account, newest first, one Query per page. With a status filter a page
 * keeps the matching ones of `limit` messages: it may hold fewer (even none) before the last.
 */
export async function listMessages(
  accountId: string,
  options: ListMessagesOptions,
  deps: { readonly messages: Pick<MessageStore, 'listByAccount'> },
): Promise<MessageLogPage> {
  const status = parseStatus(options.status);
  const limit = parseLimit(options.limit);
  const after = options.cursor ? decodeCursor(options.cursor, accountId, status) : undefined;
  const page = await deps.messages.listByAccount({
    accountId,
    limit,
    ...(status ? { status } : {}),
    ...(after ? { startAfter: { id: after.id, accountId, createdAt: after.createdAt } } : {}),
  });
  const next = page.next;
  return {
    data: page.records.map(toMessageResource),
    nextCursor:
      next && typeof next.id === 'string' && typeof next.createdAt === 'string'
        ? encodeCursor({ id: next.id, createdAt: next.createdAt, accountId, status: status ?? null })
        : null,
  };
}

/** One message of an account, as `GET /messages/{id}` shows it; a 404 problem for any other id. */
export async function readAccountMessage(
  accountId: string,
  id: string,
  deps: { readonly messages: Pick<MessageStore, 'get'> },
): Promise<MessageResource> {
  const wellFormed = MESSAGE_ID_PATTERN.test(id);
  const record = wellFormed ? await deps.messages.get(id) : undefined;
  if (!record || record.accountId !== accountId) {
    throw problems.notFound(`No message ${wellFormed ? id : 'with that id'} exists for this account.`);
  }
  return toMessageResource(record);
}
