import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbKeyStore } from '../../../lambda/keys/dynamodb-key-store.js';
import type { ApiKeyRecord } from '../../../lambda/keys/key-store.js';
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';

const TABLE = 'ApiKeys';
const HASH = 'a'.repeat(64);
const client = createDocumentClient({ region: 'eu-west-1' });
const ddb = mockClient(client);
const store = new DynamoDbKeyStore(client, TABLE);

const conditionFailed = () => new ConditionalCheckFailedException({ message: 'x', $metadata: {} });
const updateInputs = () => ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input);

const record = (overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  keyHash: HASH,
  keyId: 'key_1',
  accountId: 'acct_1',
  name: 'default',
  prefix: 'sk_live_AbCd',
  last4: 'wXyZ',
  status: 'active',
  plan: 'pro',
  gatewayKeyId: 'gk-1',
  createdAt: '2026-11-21T10:15:00.000Z',
  ...overrides,
});

beforeEach(() => {
  ddb.reset();
});

describe('findByHash', () => {
  it('gets the key by its hash', async () => {
    ddb.on(GetCommand).resolves({ Item: record() });
    expect(await store.findByHash(HASH)).toEqual(record());
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: TABLE, Key: { keyHash: HASH } },
    ]);
  });

  it('returns undefined for an unknown hash', async () => {
    ddb.on(GetCommand).resolves({});
    expect(await store.findByHash(HASH)).toBeUndefined();
  });
});

describe('put', () => {
  it('stores a new key only if no key has that hash (never overwrites)', async () => {
    ddb.on(PutCommand).resolves({});
    await store.put(record());
    expect(ddb.commandCalls(PutCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: TABLE, Item: record(), ConditionExpression: 'attribute_not_exists(keyHash)' },
    ]);
  });

  it('lets the condition failure of an existing hash propagate', async () => {
    const failed = conditionFailed();
    ddb.on(PutCommand).rejects(failed);
    await expect(store.put(record())).rejects.toBe(failed);
  });
});

describe('listByAccount', () => {
  const query = (startKey?: Record<string, unknown>) => ({
    TableName: TABLE,
    IndexName: 'byAccount',
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': 'accountId' },
    ExpressionAttributeValues: { ':pk': 'acct_1' },
    ExclusiveStartKey: startKey,
  });
  // paginateQuery reuses one input object and sets ExclusiveStartKey on it in place: copy each input as it is sent.
  let queryInputs: QueryCommandInput[];
  const page = (output: Partial<QueryCommandOutput>) => (input: QueryCommandInput) => {
    queryInputs.push(structuredClone(input));
    return output;
  };
  beforeEach(() => {
    queryInputs = [];
  });

  it('queries the byAccount index by accountId', async () => {
    ddb.on(QueryCommand).callsFake(page({ Items: [record()] }));
    expect(await store.listByAccount('acct_1')).toEqual([record()]);
    expect(queryInputs).toEqual([query()]);
    expect(queryInputs[0]?.ExclusiveStartKey).toBeUndefined();
  });

  it('follows LastEvaluatedKey through every page, in order', async () => {
    const page2Start = { keyHash: 'b'.repeat(64), accountId: 'acct_1', keyId: 'key_2' };
    const page3Start = { keyHash: 'c'.repeat(64), accountId: 'acct_1', keyId: 'key_3' };
    const all = [1, 2, 3, 4].map((n) => record({ keyHash: String(n).repeat(64), keyId: `key_${n}` }));
    ddb
      .on(QueryCommand)
      .callsFakeOnce(page({ Items: all.slice(0, 2), LastEvaluatedKey: page2Start }))
      .callsFakeOnce(page({ Items: all.slice(2, 3), LastEvaluatedKey: page3Start }))
      .callsFakeOnce(page({ Items: all.slice(3) }));
    expect(await store.listByAccount('acct_1')).toEqual(all);
    expect(queryInputs).toEqual([query(), query(page2Start), query(page3Start)]);
  });

  it('goes on past an empty page that still has a LastEvaluatedKey', async () => {
    const start = { keyHash: 'b'.repeat(64), accountId: 'acct_1', keyId: 'key_2' };
    ddb
      .on(QueryCommand)
      .callsFakeOnce(page({ LastEvaluatedKey: start }))
      .callsFakeOnce(page({ Items: [record()] }));
    expect(await store.listByAccount('acct_1')).toEqual([record()]);
    expect(queryInputs).toEqual([query(), query(start)]);
  });

  it('returns an empty list for an account without keys', async () => {
    ddb.on(QueryCommand).callsFake(page({ Items: [] }));
    expect(await store.listByAccount('acct_1')).toEqual([]);
    expect(queryInputs).toHaveLength(1);
  });

  it('lets query errors propagate', async () => {
    ddb.on(QueryCommand).rejects(new Error('network'));
    await expect(store.listByAccount('acct_1')).rejects.toThrow('network');
  });
});

describe('update', () => {
  it('SETs the given attributes, only on an existing key, with names and values for each', async () => {
    ddb.on(UpdateCommand).resolves({});
    await store.update(HASH, { status: 'revoked', revokedAt: '2026-11-21T11:00:00.000Z' });
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { keyHash: HASH },
        UpdateExpression: 'SET #status = :status, #revokedAt = :revokedAt',
        ConditionExpression: 'attribute_exists(#key)',
        ExpressionAttributeNames: { '#status': 'status', '#revokedAt': 'revokedAt', '#key': 'keyHash' },
        ExpressionAttributeValues: { ':status': 'revoked', ':revokedAt': '2026-11-21T11:00:00.000Z' },
      },
    ]);
  });

  it('SETs limits as a map when given', async () => {
    ddb.on(UpdateCommand).resolves({});
    await store.update(HASH, { plan: 'enterprise', limits: { perMinute: 20_000, perDay: 5_000_000 } });
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { keyHash: HASH },
        UpdateExpression: 'SET #plan = :plan, #limits = :limits',
        ConditionExpression: 'attribute_exists(#key)',
        ExpressionAttributeNames: { '#plan': 'plan', '#limits': 'limits', '#key': 'keyHash' },
        ExpressionAttributeValues: { ':plan': 'enterprise', ':limits': { perMinute: 20_000, perDay: 5_000_000 } },
      },
    ]);
  });

  it('REMOVEs limits when they are given as undefined (a move off Enterprise), next to the SET', async () => {
    ddb.on(UpdateCommand).resolves({});
    await store.update(HASH, { plan: 'business', limits: undefined });
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { keyHash: HASH },
        UpdateExpression: 'SET #plan = :plan REMOVE #limits',
        ConditionExpression: 'attribute_exists(#key)',
        ExpressionAttributeNames: { '#plan': 'plan', '#limits': 'limits', '#key': 'keyHash' },
        ExpressionAttributeValues: { ':plan': 'business' },
      },
    ]);
    // No placeholder for the removed attribute: DynamoDB rejects unused values.
    expect(updateInputs()[0]?.ExpressionAttributeValues).not.toHaveProperty(':limits');
  });

  it('with only removals has no SET and no ExpressionAttributeValues at all', async () => {
    ddb.on(UpdateCommand).resolves({});
    await store.update(HASH, { limits: undefined, gatewayKeyId: undefined });
    expect(updateInputs()).toEqual([
      {
        TableName: TABLE,
        Key: { keyHash: HASH },
        UpdateExpression: 'REMOVE #limits, #gatewayKeyId',
        ConditionExpression: 'attribute_exists(#key)',
        ExpressionAttributeNames: { '#limits': 'limits', '#gatewayKeyId': 'gatewayKeyId', '#key': 'keyHash' },
      },
    ]);
    expect(updateInputs()[0]).not.toHaveProperty('ExpressionAttributeValues');
  });

  it('sends nothing when there is nothing to change', async () => {
    ddb.on(UpdateCommand).resolves({});
    await store.update(HASH, {});
    expect(updateInputs()).toEqual([]);
  });

  it('lets the condition failure of an unknown key propagate', async () => {
    const failed = conditionFailed();
    ddb.on(UpdateCommand).rejects(failed);
    await expect(store.update(HASH, { status: 'revoked' })).rejects.toBe(failed);
  });
});
