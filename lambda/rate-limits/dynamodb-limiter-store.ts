import { type DynamoDBDocumentClient as DocumentClient, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { conditionally, getItem, isConditionFailure } from '../shared/dynamodb.js';
import { addClause } from '../shared/dynamodb-update.js';
import { consumeExpression } from './limiter-expressions.js';
import {
  dayCounter,
  keyDayCounter,
  keyMarkerName,
  keyMinuteCounter,
  type KeyMarker,
  type LimiterItem,
  minuteCounter,
  parseItem,
  staleAttributes,
} from './limiter-item.js';
import type {
  ConsumeCondition,
  Counted,
  LimiterStore,
  Mutable,
  RefundWindows,
  Refused,
  ShardProvision,
  StrikeTally,
} from './limiter-store.js';

/** `{ '#<prefix>0': names[0], … }`: placeholders for attribute names. */
const placeholders = (prefix: string, names: readonly string[]) =>
  Object.fromEntries(names.map((name, i) => [`#${prefix}${i}`, name]));

/** What a strike write adds for its tally: an ADD action (`:one` is the strike's own value) and a REMOVE clause. */
function tallyExpression(tally?: StrikeTally): { add: string; remove: string; names?: Record<string, string> } {
  if (!tally) return { add: '', remove: '' };
  const expired = placeholders('expired', tally.expired ?? []);
  const remove = Object.keys(expired).length > 0 ? ` REMOVE ${Object.keys(expired).join(', ')}` : '';
  return { add: '#refusal :one', remove, names: { '#refusal': tally.counter, ...expired } };
}

/** Limiter state in DynamoDB (limiter-item.ts). A refused write sends the item back, except on dynalite. */
export class DynamoDbLimiterStore implements LimiterStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async tryConsume(id: string, c: ConsumeCondition): Promise<Counted | Refused> {
    const expression = consumeExpression(c);
    try {
      const result = await this.update(id, {
        UpdateExpression: expression.update,
        ConditionExpression: expression.condition,
        ExpressionAttributeNames: expression.names,
        ExpressionAttributeValues: expression.values,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      const attrs = result.Attributes ?? {};
      const counted: Mutable<Counted> = { counted: true, item: parseItem(attrs) };
      const stale = staleAttributes(attrs, { minute: c.minuteWindow, day: c.dayWindow }, c.nowMs);
      if (stale.length > 0) counted.tidy = () => this.removeAttributes(id, stale);
      return counted;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const item = (error as { Item?: Record<string, unknown> }).Item;
      return item === undefined ? { counted: false } : { counted: false, item: parseItem(item) };
    }
  }

  async get(id: string): Promise<LimiterItem | undefined> {
    const item = await getItem<Record<string, unknown>>(this.client, this.tableName, { id });
    return item ? parseItem(item) : undefined;
  }

  async provision(id: string, p: ShardProvision): Promise<void> {
    await this.update(id, provisionInput(p));
  }

  async provisionIfMissing(id: string, p: ShardProvision): Promise<void> {
    const onlyIfMissing = 'attribute_not_exists(minuteLimit)';
    await conditionally(() => this.update(id, { ...provisionInput(p), ConditionExpression: onlyIfMissing }));
  }

  setKeyMarker(
    id: string,
    keyId: string,
    marker: KeyMarker,
    untilMs: number,
    nowMs: number,
    options: { readonly create?: boolean } = {},
  ): Promise<boolean> {
    const ban = marker === 'ban';
    const conditions = [
      ...(options.create ? [] : ['attribute_exists(id)']),
      ...(ban ? ['(attribute_not_exists(#k) OR #k <= :now)'] : []),
    ];
    return conditionally(() =>
      this.update(id, {
        UpdateExpression: 'SET #k = :until',
        ...(conditions.length > 0 ? { ConditionExpression: conditions.join(' AND ') } : {}),
        ExpressionAttributeNames: { '#k': keyMarkerName(keyId, marker) },
        ExpressionAttributeValues: ban ? { ':until': untilMs, ':now': nowMs } : { ':until': untilMs },
      }),
    );
  }

  async clearKeyMarker(id: string, keyId: string, marker: KeyMarker): Promise<void> {
    await this.removeAttributes(id, [keyMarkerName(keyId, marker)]);
  }

  async addStrike(id: string, windowStart: number, tally?: StrikeTally): Promise<number | undefined> {
    const counted = tallyExpression(tally);
    try {
      const result = await this.update(id, {
        UpdateExpression: `ADD strikeCount :one${counted.add ? `, ${counted.add}` : ''}${counted.remove}`,
        ConditionExpression: 'strikeWindowStart = :start',
        ...(counted.names ? { ExpressionAttributeNames: counted.names } : {}),
        ExpressionAttributeValues: { ':one': 1, ':start': windowStart },
        ReturnValues: 'UPDATED_NEW',
      });
      return Number(result.Attributes?.strikeCount);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  restartStrikes(id: string, expectedStart: number | undefined, nowMs: number, tally?: StrikeTally): Promise<boolean> {
    const counted = tallyExpression(tally);
    return conditionally(() =>
      this.update(id, {
        UpdateExpression: `SET strikeWindowStart = :now, strikeCount = :one${counted.add ? ` ADD ${counted.add}` : ''}${counted.remove}`,
        ConditionExpression:
          expectedStart === undefined ? 'attribute_not_exists(strikeWindowStart)' : 'strikeWindowStart = :expected',
        ...(counted.names ? { ExpressionAttributeNames: counted.names } : {}),
        ExpressionAttributeValues: {
          ':now': nowMs,
          ':one': 1,
          ...(expectedStart === undefined ? {} : { ':expected': expectedStart }),
        },
      }),
    );
  }

  async resetStrikes(id: string): Promise<void> {
    await this.update(id, {
      UpdateExpression: 'REMOVE strikeWindowStart SET strikeCount = :zero',
      ExpressionAttributeValues: { ':zero': 0 },
    });
  }

  async refund(id: string, w: RefundWindows): Promise<void> {
    const minute = [minuteCounter(w.minuteWindow), ...(w.keyId ? [keyMinuteCounter(w.keyId, w.minuteWindow)] : [])];
    const day = [dayCounter(w.dayWindow), ...(w.keyId ? [keyDayCounter(w.keyId, w.dayWindow)] : [])];
    const units = w.units ?? 1;
    // Both windows, or only the day once the minute has rolled over (its counters are gone).
    if (await this.decrement(id, [...minute, ...day], units)) return;
    await this.decrement(id, day, units);
  }

  async adjustCounters(id: string, deltas: Readonly<Record<string, number>>): Promise<void> {
    const entries = Object.entries(deltas).filter(([, amount]) => amount !== 0);
    if (entries.length === 0) return;
    const { clause, names, values } = addClause(entries);
    await this.update(id, {
      UpdateExpression: clause,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  }

  /** ADDs −units to each counter while every one of them holds at least units; false otherwise. */
  private decrement(id: string, counters: readonly string[], units: number): Promise<boolean> {
    const names = placeholders('c', counters);
    return conditionally(() =>
      this.update(id, {
        UpdateExpression: `ADD ${Object.keys(names).map((p) => `${p} :minus`).join(', ')}`,
        ConditionExpression: Object.keys(names).map((p) => `${p} >= :units`).join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':minus': -units, ':units': units },
      }),
    );
  }

  /** Removes attributes; never recreates an item that is gone (an expired anonymous one). */
  private async removeAttributes(id: string, attributes: readonly string[]): Promise<void> {
    const names = placeholders('r', attributes);
    await conditionally(() =>
      this.update(id, {
        UpdateExpression: `REMOVE ${Object.keys(names).join(', ')}`,
        ConditionExpression: 'attribute_exists(id)',
        ExpressionAttributeNames: names,
      }),
    );
  }

  private update(id: string, input: Omit<UpdateCommandInput, 'TableName' | 'Key'>) {
    return this.client.send(new UpdateCommand({ TableName: this.tableName, Key: { id }, ...input }));
  }
}

const provisionInput = (p: ShardProvision) => ({
  UpdateExpression: 'SET #sm = :sm, #sd = :sd, #am = :am, #ad = :ad, #s = :s',
  ExpressionAttributeNames: { '#sm': 'minuteLimit', '#sd': 'dayLimit', '#am': 'perMinute', '#ad': 'perDay', '#s': 'shards' },
  ExpressionAttributeValues: {
    ':sm': p.slice.perMinute,
    ':sd': p.slice.perDay,
    ':am': p.account.perMinute,
    ':ad': p.account.perDay,
    ':s': p.shards,
  },
});
