import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally } from '../shared/dynamodb.js';
import type { MessageRecord } from './message.js';
import type { MessageStore, Transition } from './ports.js';

export class DynamoDbMessageStore implements MessageStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

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

  async remove(id: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { id } }));
  }

  markProcessed(id: string, at: string): Promise<Transition> {
    return this.transition(id, 'processed', 'processedAt', at, ['queued', 'failed']);
  }

  markFailed(id: string, at: string): Promise<Transition> {
    return this.transition(id, 'failed', 'failedAt', at, ['queued']);
  }

  private async transition(
    id: string,
    to: 'processed' | 'failed',
    stampAttribute: string,
    at: string,
    from: readonly string[],
  ): Promise<Transition> {
    const fromValues = Object.fromEntries(from.map((s, i) => [`:from${i}`, s]));
    // ALL_OLD costs no read capacity: the usage history learns the sender and the day from it.
    let before: Record<string, unknown> | undefined;
    const updated = await conditionally(async () => {
      const answer = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: `SET #status = :to, #stamp = :at`,
          ConditionExpression: `attribute_exists(id) AND #status IN (${Object.keys(fromValues).join(', ')})`,
          ExpressionAttributeNames: { '#status': 'status', '#stamp': stampAttribute },
          ExpressionAttributeValues: { ':to': to, ':at': at, ...fromValues },
          ReturnValues: 'ALL_OLD',
        }),
      );
      before = answer.Attributes;
    });
    if (updated) {
      const record = before as MessageRecord | undefined;
      return record
        ? { result: 'updated', before: { accountId: record.accountId, keyId: record.keyId, createdAt: record.createdAt, status: record.status } }
        : { result: 'updated' };
    }
    return { result: (await this.get(id)) ? 'already_done' : 'missing' };
  }
}
