import { type DynamoDBDocumentClient as DocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally, isConditionFailure } from '../shared/dynamodb.js';
import type { ConsumeCondition, Consumed, LimiterItem, LimiterStore, Mutable } from './limiter-store.js';

/**
 * Limiter state in DynamoDB, one item per subject. Each window's count is an attribute named after
 * the window (`m<minute index>`, `d<day index>`), so counting in a new window needs no reset: the
 * one conditional write ADDs to the current counters (creating them at 1) and REMOVEs the previous
 * window's. A request is therefore one round trip whether or not a window just rolled over.
 * Counters of older windows (left when a subject was idle) are tidied off the critical path.
 */
export class DynamoDbLimiterStore implements LimiterStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async tryConsume(id: string, c: ConsumeCondition): Promise<Consumed | undefined> {
    const minute = minuteCounter(c.minuteWindow);
    const day = dayCounter(c.dayWindow);
    const values: Record<string, unknown> = { ':one': 1, ':active': 'active', ':now': c.nowMs };
    let condition: string;
    if (c.limits === 'stored') {
      // Keys: the control plane creates the item, active and with the key's limits.
      condition =
        '#status = :active AND (attribute_not_exists(#m) OR #m < minuteLimit)' +
        ' AND (attribute_not_exists(#d) OR #d < dayLimit)';
    } else {
      // Anonymous callers: the item is created by this write, with the config's limits.
      condition =
        '(attribute_not_exists(#status) OR #status = :active) AND (attribute_not_exists(#m) OR #m < :lm)' +
        ' AND (attribute_not_exists(#d) OR #d < :ld)';
      values[':lm'] = c.limits.perMinute;
      values[':ld'] = c.limits.perDay;
    }
    let set = 'lastUsedAt = :now';
    if (c.expiresAtSeconds !== undefined) {
      set += ', expiresAt = :exp';
      values[':exp'] = c.expiresAtSeconds;
    }
    try {
      const result = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: `ADD #m :one, #d :one SET ${set} REMOVE #pm, #pd`,
          ConditionExpression: `${condition} AND (attribute_not_exists(banUntil) OR banUntil <= :now)`,
          ExpressionAttributeNames: {
            '#status': 'status',
            '#m': minute,
            '#d': day,
            '#pm': minuteCounter(c.minuteWindow - 1),
            '#pd': dayCounter(c.dayWindow - 1),
          },
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      const attrs = result.Attributes ?? {};
      const consumed: Mutable<Consumed> = {
        minuteCount: Number(attrs[minute]),
        dayCount: Number(attrs[day]),
      };
      if (attrs.minuteLimit !== undefined) consumed.minuteLimit = Number(attrs.minuteLimit);
      if (attrs.dayLimit !== undefined) consumed.dayLimit = Number(attrs.dayLimit);
      const stale = staleCounters(attrs, c);
      if (stale.length > 0) consumed.tidy = () => this.removeCounters(id, stale);
      return consumed;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async get(id: string): Promise<LimiterItem | undefined> {
    const result = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }),
    );
    return result.Item ? limiterItemOf(result.Item) : undefined;
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
    const names = { '#m': minuteCounter(windows.minuteWindow), '#d': dayCounter(windows.dayWindow) };
    const values = { ':minusOne': -1, ':zero': 0 };
    const both = await conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'ADD #m :minusOne, #d :minusOne',
          ConditionExpression: '#m > :zero AND #d > :zero',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
    if (both) return;
    // The minute rolled over since (its counter is gone): only the day still holds the request.
    await conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: 'ADD #d :minusOne',
          ConditionExpression: '#d > :zero',
          ExpressionAttributeNames: { '#d': names['#d'] },
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  async activateKey(id: string, limits: { perMinute: number; perDay: number }): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id },
        // A reactivated key keeps the counts of its current windows.
        UpdateExpression: 'SET #status = :active, minuteLimit = :pm, dayLimit = :pd',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':active': 'active', ':pm': limits.perMinute, ':pd': limits.perDay },
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

  /** Removes counters of past windows; never recreates an item that is gone (an expired anonymous one). */
  private async removeCounters(id: string, counters: readonly string[]): Promise<void> {
    const names: Record<string, string> = {};
    counters.forEach((name, i) => {
      names[`#c${i}`] = name;
    });
    await conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: `REMOVE ${Object.keys(names).join(', ')}`,
          ConditionExpression: 'attribute_exists(id)',
          ExpressionAttributeNames: names,
        }),
      ),
    );
  }
}

const COUNTER = /^([md])(\d+)$/;
/** The attributes of the item's earlier format (one stored window per kind): no longer counted, never read. */
const EARLIER_FORMAT = new Set(['minuteWindow', 'minuteCount', 'dayWindow', 'dayCount']);
const minuteCounter = (minuteWindow: number) => `m${minuteWindow}`;
const dayCounter = (dayWindow: number) => `d${dayWindow}`;

/** Counters of windows before the previous ones: the write that counts removes only the previous ones. */
function staleCounters(attrs: Record<string, unknown>, c: ConsumeCondition): string[] {
  const stale: string[] = [];
  for (const name in attrs) {
    const counter = COUNTER.exec(name);
    if (!counter) continue;
    const window = Number(counter[2]);
    // The previous window is left alone: a request with a slightly late clock may still count there.
    if (window < (counter[1] === 'm' ? c.minuteWindow : c.dayWindow) - 1) stale.push(name);
  }
  return stale;
}

/** The item as the limiter reads it: the latest minute and day counters, the other attributes as stored. */
function limiterItemOf(attrs: Record<string, unknown>): LimiterItem {
  const item: Record<string, unknown> = { minuteWindow: 0, minuteCount: 0, dayWindow: 0, dayCount: 0 };
  for (const name in attrs) {
    const counter = COUNTER.exec(name);
    if (!counter) {
      if (!EARLIER_FORMAT.has(name)) item[name] = attrs[name];
      continue;
    }
    const kind = counter[1] === 'm' ? 'minute' : 'day';
    const window = Number(counter[2]);
    if (window >= Number(item[`${kind}Window`])) {
      item[`${kind}Window`] = window;
      item[`${kind}Count`] = Number(attrs[name]);
    }
  }
  return item as unknown as LimiterItem;
}
