import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbLimiterStore } from '../../../lambda/rate-limits/dynamodb-limiter-store.js';
import type { LimiterItem } from '../../../lambda/rate-limits/limiter-store.js';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';

const TABLE = 'RateLimits';
const ID = 'key#key_1';
const ddb = mockClient(DynamoDBDocumentClient);
const store = new DynamoDbLimiterStore(createDocumentClient({ region: 'eu-west-1' }), TABLE);

const conditionFailed = () => new ConditionalCheckFailedException({ message: 'x', $metadata: {} });
const updateInputs = () => ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input);

beforeEach(() => {
  ddb.reset();
});

const condition = {
  minuteWindow: 29_920_935,
  dayWindow: 20_778,
  limits: { perMinute: 60, perDay: 1_000 },
  nowMs: 1_795_256_130_000,
};
/** A key's condition: compare with the limits stored in its item. */
const stored = { ...condition, limits: 'stored' as const };

describe('tryConsume', () => {
  it('with explicit limits (anonymous subjects) is one conditional UpdateItem counting both windows', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { id: 'ip#203.0.113.7', minuteCount: 13, dayCount: 401 } });
    expect(await store.tryConsume(ID, condition)).toEqual({ minuteCount: 13, dayCount: 401 });
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression: 'SET minuteCount = minuteCount + :one, dayCount = dayCount + :one, lastUsedAt = :now',
        ConditionExpression:
          'minuteWindow = :mw AND dayWindow = :dw AND minuteCount < :pm AND dayCount < :pd' +
          ' AND (attribute_not_exists(#status) OR #status = :active)' +
          ' AND (attribute_not_exists(banUntil) OR banUntil <= :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':mw': 29_920_935,
          ':dw': 20_778,
          ':pm': 60,
          ':pd': 1_000,
          ':active': 'active',
          ':now': 1_795_256_130_000,
        },
        ReturnValues: 'ALL_NEW',
      },
    ]);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('with \'stored\' limits (keys) compares with the item\'s own minuteLimit and dayLimit, without :pm/:pd', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { minuteCount: 13, dayCount: 401 } });
    await store.tryConsume(ID, stored);
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression: 'SET minuteCount = minuteCount + :one, dayCount = dayCount + :one, lastUsedAt = :now',
        ConditionExpression:
          'minuteWindow = :mw AND dayWindow = :dw AND minuteCount < minuteLimit AND dayCount < dayLimit' +
          ' AND (attribute_not_exists(#status) OR #status = :active)' +
          ' AND (attribute_not_exists(banUntil) OR banUntil <= :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':one': 1,
          ':mw': 29_920_935,
          ':dw': 20_778,
          ':active': 'active',
          ':now': 1_795_256_130_000,
        },
        ReturnValues: 'ALL_NEW',
      },
    ]);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('returns the new counts and the stored limits from the whole new item, and nothing else of it', async () => {
    ddb.on(UpdateCommand).resolves({
      Attributes: {
        id: ID,
        status: 'active',
        minuteWindow: 29_920_935,
        minuteCount: 13,
        dayWindow: 20_778,
        dayCount: 401,
        minuteLimit: 300,
        dayLimit: 10_000,
        lastUsedAt: 1_795_256_130_000,
        strikeCount: 0,
      },
    });
    expect(await store.tryConsume(ID, stored)).toEqual({
      minuteCount: 13,
      dayCount: 401,
      minuteLimit: 300,
      dayLimit: 10_000,
    });
  });

  it('returns no limits when the item has none', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { minuteCount: 2, dayCount: 3 } });
    const consumed = await store.tryConsume(ID, condition);
    expect(consumed).toEqual({ minuteCount: 2, dayCount: 3 });
    expect(consumed && Object.keys(consumed)).toEqual(['minuteCount', 'dayCount']);
  });

  it('maps a failed condition to undefined', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await store.tryConsume(ID, condition)).toBeUndefined();
    expect(await store.tryConsume(ID, stored)).toBeUndefined();
  });

  it('recognises a condition failure by its name too (errors crossing SDK copies)', async () => {
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('x'), { name: 'ConditionalCheckFailedException' }));
    expect(await store.tryConsume(ID, condition)).toBeUndefined();
  });

  it('lets other errors propagate', async () => {
    const throttled = Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' });
    ddb.on(UpdateCommand).rejects(throttled);
    await expect(store.tryConsume(ID, condition)).rejects.toBe(throttled);
  });
});

describe('get', () => {
  it('reads consistently', async () => {
    const item: LimiterItem = { id: ID, minuteWindow: 1, minuteCount: 2, dayWindow: 3, dayCount: 4 };
    ddb.on(GetCommand).resolves({ Item: item });
    expect(await store.get(ID)).toEqual(item);
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: TABLE, Key: { id: ID }, ConsistentRead: true },
    ]);
  });

  it('returns undefined for an absent item', async () => {
    ddb.on(GetCommand).resolves({});
    expect(await store.get(ID)).toBeUndefined();
  });
});

describe('replaceCounts', () => {
  const next = { minuteWindow: 11, minuteCount: 1, dayWindow: 22, dayCount: 7, lastUsedAt: 1_795_256_130_000 };

  it('creates an absent item only if it is still absent, with its expiry', async () => {
    ddb.on(UpdateCommand).resolves({});
    expect(await store.replaceCounts('ip#203.0.113.7', undefined, next, 1_795_400_000)).toBe(true);
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { id: 'ip#203.0.113.7' },
        UpdateExpression:
          'SET minuteWindow = :nmw, minuteCount = :nmc, dayWindow = :ndw, dayCount = :ndc, lastUsedAt = :now,' +
          ' expiresAt = :exp',
        ConditionExpression: 'attribute_not_exists(id)',
        ExpressionAttributeValues: {
          ':nmw': 11,
          ':nmc': 1,
          ':ndw': 22,
          ':ndc': 7,
          ':now': 1_795_256_130_000,
          ':exp': 1_795_400_000,
        },
      },
    ]);
  });

  it('replaces an existing item only if its windows and counts are still the ones read', async () => {
    ddb.on(UpdateCommand).resolves({});
    const expected: LimiterItem = {
      id: ID,
      status: 'active',
      minuteWindow: 10,
      minuteCount: 60,
      dayWindow: 22,
      dayCount: 6,
      banUntil: 5,
    };
    expect(await store.replaceCounts(ID, expected, next)).toBe(true);
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression:
          'SET minuteWindow = :nmw, minuteCount = :nmc, dayWindow = :ndw, dayCount = :ndc, lastUsedAt = :now',
        ConditionExpression: 'minuteWindow = :emw AND minuteCount = :emc AND dayWindow = :edw AND dayCount = :edc',
        ExpressionAttributeValues: {
          ':nmw': 11,
          ':nmc': 1,
          ':ndw': 22,
          ':ndc': 7,
          ':now': 1_795_256_130_000,
          ':emw': 10,
          ':emc': 60,
          ':edw': 22,
          ':edc': 6,
        },
      },
    ]);
  });

  it('answers false when the item changed meanwhile, and propagates other errors', async () => {
    ddb.on(UpdateCommand).rejectsOnce(conditionFailed()).rejectsOnce(new Error('network'));
    expect(await store.replaceCounts(ID, undefined, next)).toBe(false);
    await expect(store.replaceCounts(ID, undefined, next)).rejects.toThrow('network');
  });
});

describe('strikes and bans', () => {
  it('addStrike adds one if the strike window is unchanged and returns the count', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { strikeCount: 4 } });
    expect(await store.addStrike(ID, 1_000)).toBe(4);
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression: 'ADD strikeCount :one',
        ConditionExpression: 'strikeWindowStart = :start',
        ExpressionAttributeValues: { ':one': 1, ':start': 1_000 },
        ReturnValues: 'UPDATED_NEW',
      },
    ]);
  });

  it('addStrike answers undefined when the strike window moved', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await store.addStrike(ID, 1_000)).toBeUndefined();
  });

  it('restartStrikes conditions on the window it saw, or on none for a first strike', async () => {
    ddb.on(UpdateCommand).resolves({});
    expect(await store.restartStrikes(ID, 1_000, 70_000)).toBe(true);
    expect(await store.restartStrikes(ID, undefined, 70_000)).toBe(true);
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression: 'SET strikeWindowStart = :now, strikeCount = :one',
        ConditionExpression: 'strikeWindowStart = :expected',
        ExpressionAttributeValues: { ':now': 70_000, ':one': 1, ':expected': 1_000 },
      },
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression: 'SET strikeWindowStart = :now, strikeCount = :one',
        ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(strikeWindowStart)',
        ExpressionAttributeValues: { ':now': 70_000, ':one': 1 },
      },
    ]);
  });

  it('ban sets the end and clears strikes unless a ban is already running; a lost race is not an error', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    await expect(store.ban(ID, 900_000, 1_000)).resolves.toBeUndefined();
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression: 'SET banUntil = :until, strikeCount = :zero',
        ConditionExpression: 'attribute_exists(id) AND (attribute_not_exists(banUntil) OR banUntil <= :now)',
        ExpressionAttributeValues: { ':until': 900_000, ':zero': 0, ':now': 1_000 },
      },
    ]);
  });

  it('liftBan removes the ban and the strike window', async () => {
    ddb.on(UpdateCommand).resolves({});
    await store.liftBan(ID);
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression: 'REMOVE banUntil, strikeWindowStart SET strikeCount = :zero',
        ExpressionAttributeValues: { ':zero': 0 },
      },
    ]);
  });
});

describe('key lifecycle', () => {
  it('activateKey sets the status and stored limits, keeps existing counts and starts a new item with empty windows', async () => {
    ddb.on(UpdateCommand).resolves({});
    await store.activateKey(ID, { perMinute: 300, perDay: 10_000 });
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression:
          'SET #status = :active, minuteLimit = :pm, dayLimit = :pd,' +
          ' minuteWindow = if_not_exists(minuteWindow, :zero), minuteCount = if_not_exists(minuteCount, :zero),' +
          ' dayWindow = if_not_exists(dayWindow, :zero), dayCount = if_not_exists(dayCount, :zero)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':active': 'active', ':pm': 300, ':pd': 10_000, ':zero': 0 },
      },
    ]);
    expect(updateInputs()[0]?.ConditionExpression).toBeUndefined();
  });

  it('setLimits writes only the stored limits, and only on an existing item', async () => {
    ddb.on(UpdateCommand).resolves({});
    await store.setLimits(ID, { perMinute: 1_000, perDay: 100_000 });
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression: 'SET minuteLimit = :pm, dayLimit = :pd',
        ConditionExpression: 'attribute_exists(id)',
        ExpressionAttributeValues: { ':pm': 1_000, ':pd': 100_000 },
      },
    ]);
  });

  it('setLimits on a missing item propagates the condition failure', async () => {
    const failed = conditionFailed();
    ddb.on(UpdateCommand).rejects(failed);
    await expect(store.setLimits(ID, { perMinute: 1, perDay: 1 })).rejects.toBe(failed);
  });

  it('revokeKey sets the status to revoked and touches nothing else', async () => {
    ddb.on(UpdateCommand).resolves({});
    await store.revokeKey(ID);
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression: 'SET #status = :revoked',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':revoked': 'revoked' },
      },
    ]);
  });
});

describe('refund', () => {
  const windows = { minuteWindow: 11, dayWindow: 22 };
  const both = {
    TableName: TABLE,
    Key: { id: ID },
    UpdateExpression: 'SET minuteCount = minuteCount - :one, dayCount = dayCount - :one',
    ConditionExpression: 'minuteWindow = :mw AND dayWindow = :dw AND minuteCount > :zero AND dayCount > :zero',
    ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':mw': 11, ':dw': 22 },
  };
  const dayOnly = {
    TableName: TABLE,
    Key: { id: ID },
    UpdateExpression: 'SET dayCount = dayCount - :one',
    ConditionExpression: 'dayWindow = :dw AND dayCount > :zero',
    ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':dw': 22 },
  };

  it('gives back one request in both windows with one write when both are current', async () => {
    ddb.on(UpdateCommand).resolves({});
    await store.refund(ID, windows);
    expect(updateInputs()).toEqual([both]);
  });

  it('falls back to the day only when the first condition fails (the minute rolled over)', async () => {
    ddb.on(UpdateCommand).rejectsOnce(conditionFailed()).resolves({});
    await store.refund(ID, windows);
    expect(updateInputs()).toEqual([both, dayOnly]);
  });

  it('gives nothing back, without an error, when the day rolled over too', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    await expect(store.refund(ID, windows)).resolves.toBeUndefined();
    expect(updateInputs()).toEqual([both, dayOnly]);
  });

  it('propagates other errors without a fallback write', async () => {
    ddb.on(UpdateCommand).rejects(new Error('network'));
    await expect(store.refund(ID, windows)).rejects.toThrow('network');
    expect(updateInputs()).toEqual([both]);
  });
});
