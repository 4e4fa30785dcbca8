import type { MessageEnvelope, MessageRecord } from '../lambda/messages/message.js';
import type {
  IdempotencyEntry,
  IdempotencyStore,
  MessagePage,
  MessagePageQuery,
  MessageQueue,
  MessageStore,
  Transition,
} from '../lambda/messages/ports.js';

/** The message store port answered from a Map (benchmarks only). */
export class MemoryMessageStore implements MessageStore {
  readonly items = new Map<string, MessageRecord>();

  async create(record: MessageRecord): Promise<void> {
    if (this.items.has(record.id)) throw new Error(`message ${record.id} exists`);
    // Bounded like the queue below: a real store keeps records out of the process, so thousands
    // kept here would bill the handler for garbage collection (about 3 µs a call) it never causes.
    if (this.items.size >= 1_000) this.items.clear();
    this.items.set(record.id, record);
  }

  async get(id: string): Promise<MessageRecord | undefined> {
    return this.items.get(id);
  }

  async remove(id: string): Promise<boolean> {
    const item = this.items.get(id);
    if (item && item.status !== 'queued') return false;
    this.items.delete(id);
    return true;
  }

  async markProcessed(id: string, at: string): Promise<Transition> {
    return this.transition(id, 'processed', at);
  }

  async markFailed(id: string, at: string): Promise<Transition> {
    return this.transition(id, 'failed', at);
  }

  async recordFailedAttempt(id: string, attempt: { attempts: number; lastError: string }): Promise<void> {
    const item = this.items.get(id);
    if (item && item.status !== 'processed') this.items.set(id, { ...item, ...attempt });
  }

  async listByAccount(query: MessagePageQuery): Promise<MessagePage> {
    const records = [...this.items.values()]
      .filter((r) => r.accountId === query.accountId && (!query.status || r.status === query.status))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, query.limit);
    return { records };
  }

  private transition(id: string, status: 'processed' | 'failed', at: string): Transition {
    const item = this.items.get(id);
    if (!item) return { result: 'missing' };
    if (item.status === status) return { result: 'already_done' };
    this.items.set(id, { ...item, status, ...(status === 'processed' ? { processedAt: at } : {}) } as MessageRecord);
    return { result: 'updated', before: { accountId: item.accountId, keyId: item.keyId, createdAt: item.createdAt, status: item.status } };
  }
}

/** The queue port as an array of message bodies (benchmarks only). */
export class MemoryMessageQueue implements MessageQueue {
  readonly sent: string[] = [];

  async send(envelope: MessageEnvelope): Promise<void> {
    // Serialised as the SQS adapter does (the body it sends), so the work per message is comparable.
    this.sent.push(JSON.stringify(envelope));
    if (this.sent.length > 1_000) this.sent.length = 0;
  }
}

/** The idempotency port with the conditional-put semantics of the DynamoDB store (benchmarks only). */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly items = new Map<string, IdempotencyEntry>();

  async claim(
    entry: IdempotencyEntry,
    nowMs: number,
  ): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyEntry }> {
    const existing = this.items.get(entry.id);
    if (existing && existing.expiresAt * 1000 > nowMs) return { claimed: false, existing };
    this.items.set(entry.id, entry);
    return { claimed: true };
  }

  async takeOver(stale: IdempotencyEntry, entry: IdempotencyEntry): Promise<boolean> {
    if (this.items.get(stale.id)?.messageId !== stale.messageId) return false;
    this.items.set(entry.id, entry);
    return true;
  }

  async release(id: string, messageId: string): Promise<void> {
    if (this.items.get(id)?.messageId === messageId) this.items.delete(id);
  }
}
