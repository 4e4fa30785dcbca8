import { describe, expect, it } from 'vitest';
import { encodeCursor, listMessages, readAccountMessage } from '../../../lambda/messages/account-messages.js';
import type { MessageRecord } from '../../../lambda/messages/message.js';
import { HttpProblem } from '../../../lambda/shared/problem.js';
import { FakeMessageStore } from '../../support/message-fakes.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const idOf = (n: number) => `msg_01JD8X3Q5Z8M2N4P6R7S9T${CROCKFORD[Math.floor(n / 32) % 32]}${CROCKFORD[n % 32]}00`;

function store(count: number, accountId = 'acct_1', messages = new FakeMessageStore(), offset = 0): FakeMessageStore {
  for (let i = offset; i < offset + count; i++) {
    const record: MessageRecord = {
      id: idOf(i),
      accountId,
      keyId: 'key_1',
      message: `m${i}`,
      status: i % 3 === 0 ? 'processed' : 'queued',
      createdAt: new Date(Date.UTC(2026, 10, 21, 10, 0, 0, i)).toISOString(),
      expiresAt: 0,
    };
    messages.records.set(record.id, record);
  }
  return messages;
}

const problemOf = async (promise: Promise<unknown>) => {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(HttpProblem);
  return error as HttpProblem;
};

describe('listMessages', () => {
  it('pages newest first with a cursor until nextCursor is null, 50 by default', async () => {
    const messages = store(120);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listMessages('acct_1', { ...(cursor ? { cursor } : {}) }, { messages });
      seen.push(...page.data.map((m) => m.id));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...Array(120).keys()].reverse().map(idOf));
    expect(messages.calls.listByAccount).toBe(3);
  });

  it('shows the public shape with attempts', async () => {
    const page = await listMessages('acct_1', { limit: '1' }, { messages: store(1) });
    expect(page.data).toEqual([
      { id: idOf(0), message: 'm0', status: 'processed', createdAt: '2026-11-21T10:00:00.000Z', attempts: 0 },
    ]);
    expect(page.nextCursor).toBeNull();
  });

  it.each(['0', '101', '-1', '1.5', 'ten', '1e2'])('refuses limit=%s with a 400 naming the field', async (limit) => {
    const problem = await problemOf(listMessages('acct_1', { limit }, { messages: store(1) }));
    expect(problem.status).toBe(400);
    expect(problem.code).toBe('invalid_field');
  });

  it('refuses an unknown status', async () => {
    const problem = await problemOf(listMessages('acct_1', { status: 'done' }, { messages: store(1) }));
    expect(problem.status).toBe(400);
  });

  it('refuses a tampered cursor, another account\'s cursor, and one made for another status filter', async () => {
    const messages = store(10);
    const first = await listMessages('acct_1', { limit: 2 }, { messages });
    const cursor = first.nextCursor as string;
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as Record<string, unknown>;
    const forged = (change: Record<string, unknown>) =>
      Buffer.from(JSON.stringify({ ...decoded, ...change })).toString('base64url');
    for (const bad of [
      `${cursor}x!`,
      'bm90IGpzb24',
      forged({ id: 'msg_short' }),
      forged({ createdAt: 'yesterday' }),
      forged({ v: 2 }),
    ]) {
      expect((await problemOf(listMessages('acct_1', { cursor: bad }, { messages }))).status).toBe(400);
    }
    expect((await problemOf(listMessages('acct_2', { cursor }, { messages }))).status).toBe(400);
    expect((await problemOf(listMessages('acct_1', { cursor, status: 'queued' }, { messages }))).status).toBe(400);
    const own = encodeCursor({ id: idOf(5), createdAt: '2026-11-21T10:00:00.005Z', accountId: 'acct_1', status: null });
    expect((await listMessages('acct_1', { cursor: own, limit: 10 }, { messages })).data.map((m) => m.id)).toEqual(
      [4, 3, 2, 1, 0].map(idOf),
    );
  });

  it('filters by status, never showing another account\'s messages', async () => {
    const messages = store(9);
    store(3, 'acct_2', messages, 100);
    const page = await listMessages('acct_1', { status: 'processed', limit: 100 }, { messages });
    expect(page.data.map((m) => m.id)).toEqual([6, 3, 0].map(idOf));
  });
});

describe('readAccountMessage', () => {
  it('reads the account\'s own message and 404s another account\'s or a malformed id', async () => {
    const messages = store(1);
    expect((await readAccountMessage('acct_1', idOf(0), { messages })).id).toBe(idOf(0));
    expect((await problemOf(readAccountMessage('acct_2', idOf(0), { messages }))).status).toBe(404);
    expect((await problemOf(readAccountMessage('acct_1', 'nope', { messages }))).status).toBe(404);
  });
});
