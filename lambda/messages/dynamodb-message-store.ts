import {
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { TABLE_KEYS } from '../../contracts/messages.js';
import { conditionally, getItem } from '../shared/dynamodb.js';
import { chunksOf, type Pacing, REAL_PACING, untilAllTaken } from '../shared/backoff.js';
import type { MessageRecord } from './message.js';
import type {
  AttemptRecord,
  MessageBatchStore,
  MessagePage,
  MessagePageQuery,
  MessageStore,
  Transition,
} from './ports.js';

/** BatchWriteItem takes at most 25 put or delete requests. */
const BATCH_WRITE_MAX = 25;
const THROTTLING = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

export class DynamoDbMessageStore implements MessageStore, MessageBatchStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /**
     * For BatchWriteItem, a client without SDK retries: it has no condition, so a retry of an attempt
     * that did land could put a record back to `queued`; a failure falls back to conditional puts.
     */
    private readonly singleAttemptClient: DynamoDBDocumentClient = client,
    private readonly pacing: Pacing = REAL_PACING,
  ) {}

  async createAll(records: readonly MessageRecord[]): Promise<void> {
    await Promise.all(
      chunksOf(records, BATCH_WRITE_MAX).map((chunk) =>
        untilAllTaken(chunk, (rest) => this.putChunk(rest), (left) => new BatchWriteError(left.length), this.pacing),
      ),
    );
  }

  async removeAll(ids: readonly string[]): Promise<readonly string[]> {
    // Conditional deletes (BatchWriteItem takes no condition), side by side; only a failed batch pays them.
    const removed = await Promise.all(ids.map((id) => this.remove(id)));
    return ids.filter((_, i) => !removed[i]);
  }

  /** One BatchWriteItem of puts; answers the records it did not take (unprocessed or throttled). */
  private async putChunk(pending: readonly MessageRecord[]): Promise<readonly MessageRecord[]> {
    try {
      const out = await this.singleAttemptClient.send(
        new BatchWriteCommand({
          RequestItems: { [this.tableName]: pending.map((r) => ({ PutRequest: { Item: r } })) },
        }),
      );
      const unprocessed = new Set((out.UnprocessedItems?.[this.tableName] ?? []).map((r) => r.PutRequest?.Item?.id));
      return pending.filter((r) => unprocessed.has(r.id));
    } catch (error) {
      // Refused whole before writing anything: try again after the backoff.
      if (THROTTLING.has((error as { name?: string }).name ?? '')) return pending;
      // Anything else may have landed: conditional puts never overwrite a record the worker moved on.
      await Promise.all(pending.map((record) => this.create(record)));
      return [];
    }
  }

  async create(record: MessageRecord): Promise<void> {
    // The worker may already have processed it (the enqueue runs alongside): never overwrite.
    await conditionally(() =>
      this.client.send(
        new PutCommand({ TableName: this.tableName, Item: record, ConditionExpression: 'attribute_not_exists(id)' }),
      ),
    );
  }

  get(id: string): Promise<MessageRecord | undefined> {
    return getItem(this.client, this.tableName, { id });
  }

  remove(id: string): Promise<boolean> {
    // Only while it is still queued: a record the worker moved on stays, and the send learns it was taken.
    return conditionally(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { id },
          ConditionExpression: 'attribute_not_exists(id) OR #status = :queued',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':queued': 'queued' },
        }),
      ),
    );
  }

  markProcessed(id: string, at: string, attempt?: AttemptRecord): Promise<Transition> {
    return this.transition(id, 'processed', at, attempt);
  }

  markFailed(id: string, at: string, attempt?: AttemptRecord): Promise<Transition> {
    return this.transition(id, 'failed', at, attempt);
  }

  async recordFailedAttempt(
    id: string,
    attempt: { readonly attempts: number; readonly lastError: string },
  ): Promise<void> {
    // Only on a record still waiting for its outcome: a late write must not touch a final one.
    await conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET attempts = :attempts, lastError = :lastError',
          ConditionExpression: 'attribute_exists(id) AND #status IN (:queued, :failed)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':attempts': attempt.attempts,
            ':lastError': attempt.lastError,
            ':queued': 'queued',
            ':failed': 'failed',
          },
        }),
      ),
    );
  }

  async listByAccount(query: MessagePageQuery): Promise<MessagePage> {
    const index = TABLE_KEYS.messages.accountIndex;
    const out = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: index.name,
        KeyConditionExpression: '#account = :account',
        // The index has no status key: a status filter reads `limit` items and keeps the matching ones.
        ...(query.status ? { FilterExpression: '#status = :status' } : {}),
        ExpressionAttributeNames: { '#account': index.partitionKey, ...(query.status ? { '#status': 'status' } : {}) },
        ExpressionAttributeValues: { ':account': query.accountId, ...(query.status ? { ':status': query.status } : {}) },
        ScanIndexForward: false,
        Limit: query.limit,
        ...(query.startAfter ? { ExclusiveStartKey: { ...query.startAfter } } : {}),
      }),
    );
    return {
      records: (out.Items ?? []) as MessageRecord[],
      ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}),
    };
  }

  /** queued|failed → `to`; ALL_OLD (no read capacity) tells the usage history the sender and the day. */
  private async transition(
    id: string,
    to: 'processed' | 'failed',
    at: string,
    attempt: AttemptRecord = {},
  ): Promise<Transition> {
    const stamp = to === 'processed' ? 'processedAt' : 'failedAt';
    const details = Object.fromEntries(Object.entries(attempt).filter(([, value]) => value !== undefined));
    const names = Object.keys(details);
    let before: MessageRecord | undefined;
    const updated = await conditionally(async () => {
      const answer = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: `SET ${['#status = :to', '#stamp = :at', ...names.map((n) => `#${n} = :${n}`)].join(', ')}`,
          ConditionExpression: 'attribute_exists(id) AND #status IN (:queued, :failed)',
          ExpressionAttributeNames: {
            '#status': 'status',
            '#stamp': stamp,
            ...Object.fromEntries(names.map((n) => [`#${n}`, n])),
          },
          ExpressionAttributeValues: {
            ':to': to,
            ':at': at,
            ':queued': 'queued',
            ':failed': 'failed',
            ...Object.fromEntries(names.map((n) => [`:${n}`, details[n]])),
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      before = answer.Attributes as MessageRecord | undefined;
    });
    if (!updated) return { result: (await this.get(id)) ? 'already_done' : 'missing' };
    if (!before) return { result: 'updated' };
    const { accountId, keyId, createdAt, status } = before;
    // The update is a plain SET: the record it left is the old one with these values.
    const after = { ...before, status: to, [stamp]: at, ...details } as MessageRecord;
    return { result: 'updated', before: { accountId, keyId, createdAt, status }, after };
  }
}

export class BatchWriteError extends Error {
  constructor(readonly left: number) {
    super(`BatchWriteItem left ${left} put requests unprocessed after its retries`);
    this.name = 'BatchWriteError';
  }
}
