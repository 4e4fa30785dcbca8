import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally, isConditionFailure } from '../shared/dynamodb.js';
import type { IdempotencyEntry, IdempotencyStore } from './ports.js';

export class DynamoDbIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** One conditional Put: the refusal brings back the live entry holding the key, so no read races a release. */
  async claim(entry: IdempotencyEntry, nowMs: number) {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: entry,
          // TTL deletion is lazy (and absent on dynalite): an expired entry counts as absent.
          ConditionExpression: 'attribute_not_exists(id) OR expiresAt < :nowSec',
          ExpressionAttributeValues: { ':nowSec': Math.floor(nowMs / 1000) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { claimed: true as const };
    } catch (error) {
      const existing = isConditionFailure(error) ? (error as { Item?: IdempotencyEntry }).Item : undefined;
      if (!existing) throw error;
      return { claimed: false as const, existing };
    }
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
