import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally } from '../shared/dynamodb.js';
import type { IdempotencyEntry, IdempotencyStore } from './ports.js';

export class DynamoDbIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(entry: IdempotencyEntry, nowMs: number) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await conditionally(() =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: entry,
            // TTL deletion is lazy (and absent on dynalite): an expired entry counts as absent.
            ConditionExpression: 'attribute_not_exists(id) OR expiresAt < :nowSec',
            ExpressionAttributeValues: { ':nowSec': Math.floor(nowMs / 1000) },
          }),
        ),
      );
      if (claimed) return { claimed: true as const };
      const existing = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { id: entry.id }, ConsistentRead: true }),
      );
      if (existing.Item) return { claimed: false as const, existing: existing.Item as IdempotencyEntry };
      // Released between our write and read: try again.
    }
    throw new Error(`idempotency key ${entry.id} is contended`);
  }

  takeOver(stale: IdempotencyEntry, entry: IdempotencyEntry): Promise<boolean> {
    return conditionally(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: entry,
          ConditionExpression: 'messageId = :stale',
          ExpressionAttributeValues: { ':stale': stale.messageId },
        }),
      ),
    );
  }

  async release(id: string, messageId: string): Promise<void> {
    await conditionally(() =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { id },
          ConditionExpression: 'messageId = :mine',
          ExpressionAttributeValues: { ':mine': messageId },
        }),
      ),
    );
  }
}
