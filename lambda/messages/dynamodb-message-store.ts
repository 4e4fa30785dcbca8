import {
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { TABLE_KEYS } from '../../contracts/messages.js';
import { conditionally } from '../shared/dynamodb.js';
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
     * For a batch's BatchWriteItem: a client without the SDK's own retries (maxAttempts 1).
     * BatchWriteItem has no condition, so an SDK retry of an attempt that did land could put a
     * record back to `queued` after the worker processed it; a failure of this client falls back
     * to conditional puts instead. @default client
     */
    private readonly singleAttemptClient: DynamoDBDocumentClient = client,
    /** The waits between a batch's attempts (a fake clock in tests). */
    private readonly pacing: Pacing = REAL_PACING,
  ) {}

  async createAll(records: readonly MessageRecord[]): Promise<void> {
    await Promise.all(
      chunksOf(records, BATCH_WRITE_MAX).map((chunk) =>
        untilAllTaken(chunk, (pending) => this.putChunk(pending), (left) => new BatchWriteError('put', left.length), this.pacing),
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

  async get(id: string): Promise<MessageRecord | undefined> {
    const result = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }),
    );
    return result.Item as MessageRecord | undefined;
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
    return this.transition(id, 'processed', 'processedAt', at, ['queued', 'failed'], attempt);
  }

  markFailed(id: string, at: string, attempt?: AttemptRecord): Promise<Transition> {
    return this.transition(id, 'failed', 'failedAt', at, ['queued', 'failed'], attempt);
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

  private async transition(
    id: string,
    to: 'processed' | 'failed',
    stampAttribute: 'processedAt' | 'failedAt',
    at: string,
    from: readonly string[],
    attempt: AttemptRecord | undefined,
  ): Promise<Transition> {
    const fromValues = Object.fromEntries(from.map((s, i) => [`:from${i}`, s]));
    const details: Record<string, unknown> = {};
    if (attempt) {
      if (attempt.attempts !== undefined) details.attempts = attempt.attempts;
      if (attempt.result !== undefined) details.result = attempt.result;
      if (attempt.lastError !== undefined) details.lastError = attempt.lastError;
    }
    const detailNames = Object.keys(details);
    const sets = ['#status = :to', '#stamp = :at', ...detailNames.map((name) => `#${name} = :${name}`)];
    // ALL_OLD costs no read capacity: the usage history learns the sender and the day from it.
    let before: Record<string, unknown> | undefined;
    const updated = await conditionally(async () => {
      const answer = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: `attribute_exists(id) AND #status IN (${Object.keys(fromValues).join(', ')})`,
          ExpressionAttributeNames: {
            '#status': 'status',
            '#stamp': stampAttribute,
            ...Object.fromEntries(detailNames.map((name) => [`#${name}`, name])),
          },
          ExpressionAttributeValues: {
            ':to': to,
            ':at': at,
            ...fromValues,
            ...Object.fromEntries(detailNames.map((name) => [`:${name}`, details[name]])),
          },
          ReturnValues: 'ALL_OLD',
        }),
      );
      before = answer.Attributes;
    });
    if (updated) {
      const record = before as MessageRecord | undefined;
      if (!record) return { result: 'updated' };
      return {
        result: 'updated',
        before: {
          accountId: record.accountId,
          keyId: record.keyId,
          createdAt: record.createdAt,
          status: record.status,
        },
        // The update is a plain SET: the record it left is the old one with these values.
        after: { ...record, status: to, [stampAttribute]: at, ...details } as MessageRecord,
      };
    }
    return { result: (await this.get(id)) ? 'already_done' : 'missing' };
  }
}

export class BatchWriteError extends Error {
  constructor(
    readonly operation: 'put' | 'delete',
    readonly left: number,
  ) {
    super(`BatchWriteItem left ${left} ${operation} requests unprocessed after its retries`);
    this.name = 'BatchWriteError';
  }
}
