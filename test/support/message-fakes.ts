import type { MessageEnvelope, MessageRecord } from '../../lambda/messages/message.js';
import type {
  AttemptRecord,
  MessagePage,
  MessagePageQuery,
  IdempotencyEntry,
  IdempotencyStore,
  MessageQueue,
  MessageStore,
  Transition,
} from '../../lambda/messages/ports.js';

/**
 * In-memory fakes of the message ports, with the semantics of the DynamoDB and SQS adapters
 * (conditional writes, idempotent transitions) and call counters for the tests.
 */

export class FakeMessageStore implements MessageStore {
  readonly records = new Map<string, MessageRecord>();
  readonly calls = {
    create: 0, get: 0, remove: 0, markProcessed: 0, markFailed: 0, recordFailedAttempt: 0, listByAccount: 0,
  };

  /** When set, `create` rejects with it. */
  failCreate: Error | undefined;
  /** When set, `remove` rejects with it. */
  failRemove: Error | undefined;

  async create(record: MessageRecord): Promise<void> {
    this.calls.create++;
    if (this.failCreate) throw this.failCreate;
    // attribute_not_exists(id): never overwrite.
    if (!this.records.has(record.id)) this.records.set(record.id, record);
  }

  async get(id: string): Promise<MessageRecord | undefined> {
    this.calls.get++;
    return this.records.get(id);
  }

  async remove(id: string): Promise<boolean> {
    this.calls.remove++;
    if (this.failRemove) throw this.failRemove;
    // Only while queued, as the DynamoDB store's condition.
    if (this.records.get(id) && this.records.get(id)?.status !== 'queued') return false;
    this.records.delete(id);
    return true;
  }

  async markProcessed(id: string, at: string, attempt?: AttemptRecord): Promise<Transition> {
    this.calls.markProcessed++;
    return this.transition(id, ['queued', 'failed'], (r) => ({ ...r, ...defined(attempt), status: 'processed', processedAt: at }));
  }

  async markFailed(id: string, at: string, attempt?: AttemptRecord): Promise<Transition> {
    this.calls.markFailed++;
    return this.transition(id, ['queued', 'failed'], (r) => ({ ...r, ...defined(attempt), status: 'failed', failedAt: at }));
  }

  async recordFailedAttempt(id: string, attempt: { attempts: number; lastError: string }): Promise<void> {
    this.calls.recordFailedAttempt++;
    const record = this.records.get(id);
    if (record && record.status !== 'processed') this.records.set(id, { ...record, ...attempt });
  }

  /** Newest first by createdAt, then id (the index's order); the cursor is the last record's keys. */
  async listByAccount(query: MessagePageQuery): Promise<MessagePage> {
    this.calls.listByAccount++;
    const order = (r: MessageRecord) => `${r.createdAt}|${r.id}`;
    const all = [...this.records.values()]
      .filter((r) => r.accountId === query.accountId)
      .sort((a, b) => order(b).localeCompare(order(a)));
    const after = query.startAfter;
    const from = after ? all.filter((r) => order(r) < `${String(after.createdAt)}|${String(after.id)}`) : all;
    const read = from.slice(0, query.limit);
    const last = read.at(-1);
    return {
      records: read.filter((r) => !query.status || r.status === query.status),
      ...(from.length > query.limit && last
        ? { next: { id: last.id, accountId: last.accountId, createdAt: last.createdAt } }
        : {}),
    };
  }

  private transition(
    id: string,
    from: readonly MessageRecord['status'][],
    apply: (r: MessageRecord) => MessageRecord,
  ): Transition {
    const record = this.records.get(id);
    if (!record) return { result: 'missing' };
    if (!from.includes(record.status)) return { result: 'already_done' };
    const after = apply(record);
    this.records.set(id, after);
    const { accountId, keyId, createdAt, status } = record;
    return { result: 'updated', before: { accountId, keyId, createdAt, status }, after };
  }
}

const defined = (attempt: AttemptRecord | undefined) =>
  Object.fromEntries(Object.entries(attempt ?? {}).filter(([, value]) => value !== undefined));

export class FakeMessageQueue implements MessageQueue {
  readonly sent: MessageEnvelope[] = [];
  calls = 0;
  /** When set, `send` rejects with it. */
  failWith: Error | undefined;

  async send(envelope: MessageEnvelope): Promise<void> {
    this.calls++;
    if (this.failWith) throw this.failWith;
    this.sent.push(envelope);
  }
}

export class FakeIdempotencyStore implements IdempotencyStore {
  readonly entries = new Map<string, IdempotencyEntry>();
  readonly calls = { claim: 0, takeOver: 0, release: 0 };

  async claim(
    entry: IdempotencyEntry,
    nowMs: number,
  ): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyEntry }> {
    this.calls.claim++;
    const existing = this.entries.get(entry.id);
    // attribute_not_exists(id) OR expiresAt < :nowSec
    if (!existing || existing.expiresAt < Math.floor(nowMs / 1000)) {
      this.entries.set(entry.id, entry);
      return { claimed: true };
    }
    return { claimed: false, existing };
  }

  async takeOver(stale: IdempotencyEntry, entry: IdempotencyEntry): Promise<boolean> {
    this.calls.takeOver++;
    if (this.entries.get(entry.id)?.messageId !== stale.messageId) return false;
    this.entries.set(entry.id, entry);
    return true;
  }

  async release(id: string, messageId: string): Promise<void> {
    this.calls.release++;
    if (this.entries.get(id)?.messageId === messageId) this.entries.delete(id);
  }
}
