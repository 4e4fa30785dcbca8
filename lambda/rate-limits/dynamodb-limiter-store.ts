import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally, isConditionFailure } from '../shared/dynamodb.js';
import type { ConsumeCondition, Consumed, Counts, LimiterItem, LimiterStore } from './limiter-store.js';

/** Limiter state in DynamoDB, one item per subject. Works on dynalite (no transactions used). */
export class DynamoDbLimiterStore implements LimiterStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async tryConsume(id: string, c: ConsumeCondition): Promise<Consumed | undefined> {
    // Keys compare with their stored limits (set by the control plane); anonymous IPs with the config's.
    const stored = c.limits === 'stored';
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET minuteCount = minuteCount + :one, dayCount = dayCount + :one, lastUsedAt = :now',
          ConditionExpression:
            'minuteWindow = :mw AND dayWindow = :dw' +
            (stored ? ' AND minuteCount < minuteLimit AND dayCount < dayLimit' : ' AND minuteCount < :pm AND dayCount < :pd') +
            ' AND (attribute_not_exists(#status) OR #status = :active)' +
            ' AND (attribute_not_exists(banUntil) OR banUntil <= :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':one': 1,
            ':mw': c.minuteWindow,
            ':dw': c.dayWindow,
            ':active': 'active',
            ':now': c.nowMs,
            ...(c.limits === 'stored' ? {} : { ':pm': c.limits.perMinute, ':pd': c.limits.perDay }),
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      const attrs = result.Attributes ?? {};
      return {
        minuteCount: Number(attrs.minuteCount),
        dayCount: Number(attrs.dayCount),
        ...(attrs.minuteLimit === undefined ? {} : { minuteLimit: Number(attrs.minuteLimit) }),
        ...(attrs.dayLimit === undefined ? {} : { dayLimit: Number(attrs.dayLimit) }),
      };
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async get(id: string): Promise<LimiterItem | undefined> {
    const result = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }),
    );
    return result.Item as LimiterItem | undefined;
  }

  replaceCounts(
    id: string,
    expected: LimiterItem | undefined,
    next: Counts & { minuteWindow: number; dayWindow: number; lastUsedAt: number },
    expiresAtSeconds?: number,
  ): Promise<boolean> {
    const set = ['minuteWindow = :nmw', 'minuteCount = :nmc', 'dayWindow = :ndw', 'dayCount = :ndc', 'lastUsedAt = :now'];
    const values: Record<string, unknown> = {
      ':nmw': next.minuteWindow,
      ':nmc': next.minuteCount,
      ':ndw': next.dayWindow,
      ':ndc': next.dayCount,
      ':now': next.lastUsedAt,
    };
    if (expiresAtSeconds !== undefined) {
      set.push('expiresAt = :exp');
      values[':exp'] = expiresAtSeconds;
    }
    let condition = 'attribute_not_exists(id)';
    if (expected) {
      condition = 'minuteWindow = :emw AND minuteCount = :emc AND dayWindow = :edw AND dayCount = :edc';
      Object.assign(values, {
        ':emw': expected.minuteWindow,
        ':emc': expected.minuteCount,
        ':edw': expected.dayWindow,
        ':edc': expected.dayCount,
      });
    }
    return conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: `SET ${set.join(', ')}`,
          ConditionExpression: condition,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  async addStrike(id: string, windowStart: number): Promise<number | undefined> {
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'ADD strikeCount :one',
          ConditionExpression: 'strikeWindowStart = :start',
          ExpressionAttributeValues: { ':one': 1, ':start': windowStart },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(result.Attributes?.strikeCount);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  restartStrikes(id: string, expectedStart: number | undefined, nowMs: number): Promise<boolean> {
    return conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET strikeWindowStart = :now, strikeCount = :one',
          ConditionExpression:
            expectedStart === undefined
              ? 'attribute_exists(id) AND attribute_not_exists(strikeWindowStart)'
              : 'strikeWindowStart = :expected',
          ExpressionAttributeValues: {
            ':now': nowMs,
            ':one': 1,
            ...(expectedStart === undefined ? {} : { ':expected': expectedStart }),
          },
        }),
      ),
    );
  }

  async ban(id: string, untilMs: number, nowMs: number): Promise<void> {
    await conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET banUntil = :until, strikeCount = :zero',
          ConditionExpression: 'attribute_exists(id) AND (attribute_not_exists(banUntil) OR banUntil <= :now)',
          ExpressionAttributeValues: { ':until': untilMs, ':zero': 0, ':now': nowMs },
        }),
      ),
    );
  }

  async refund(id: string, windows: { minuteWindow: number; dayWindow: number }): Promise<void> {
    const both = await conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET minuteCount = minuteCount - :one, dayCount = dayCount - :one',
          ConditionExpression: 'minuteWindow = :mw AND dayWindow = :dw AND minuteCount > :zero AND dayCount > :zero',
          ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':mw': windows.minuteWindow, ':dw': windows.dayWindow },
        }),
      ),
    );
    if (both) return;
    // The minute rolled over since: only the day still holds the request.
    await conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'SET dayCount = dayCount - :one',
          ConditionExpression: 'dayWindow = :dw AND dayCount > :zero',
          ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':dw': windows.dayWindow },
        }),
      ),
    );
  }

  async activateKey(id: string, limits: { perMinute: number; perDay: number }): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id },
        // A new key starts with empty windows; an existing one keeps its counts.
        UpdateExpression:
          'SET #status = :active, minuteLimit = :pm, dayLimit = :pd,' +
          ' minuteWindow = if_not_exists(minuteWindow, :zero), minuteCount = if_not_exists(minuteCount, :zero),' +
          ' dayWindow = if_not_exists(dayWindow, :zero), dayCount = if_not_exists(dayCount, :zero)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':active': 'active', ':pm': limits.perMinute, ':pd': limits.perDay, ':zero': 0 },
      }),
    );
  }

  async setLimits(id: string, limits: { perMinute: number; perDay: number }): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id },
        UpdateExpression: 'SET minuteLimit = :pm, dayLimit = :pd',
        ConditionExpression: 'attribute_exists(id)',
        ExpressionAttributeValues: { ':pm': limits.perMinute, ':pd': limits.perDay },
      }),
    );
  }

  async revokeKey(id: string): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id },
        UpdateExpression: 'SET #status = :revoked',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':revoked': 'revoked' },
      }),
    );
  }

  async liftBan(id: string): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id },
        UpdateExpression: 'REMOVE banUntil, strikeWindowStart SET strikeCount = :zero',
        ExpressionAttributeValues: { ':zero': 0 },
      }),
    );
  }
}
