import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { type AccountRecord, DynamoDbAccountStore } from '../../../lambda/keys/accounts.js';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';

const TABLE = 'Accounts';
const client = createDocumentClient({ region: 'eu-west-1' });
const ddb = mockClient(client);
const store = new DynamoDbAccountStore(client, TABLE);

const conditionFailed = () => new ConditionalCheckFailedException({ message: 'x', $metadata: {} });
const putInputs = () => ddb.commandCalls(PutCommand).map((c) => c.args[0].input);

const account: AccountRecord = {
  accountId: 'acct_1',
  name: 'Acme',
  plan: 'enterprise',
  limits: { perMinute: 20_000, perDay: 5_000_000 },
  gatewayUsagePlanId: 'up-acct_1',
  createdAt: '2026-11-21T10:15:00.000Z',
  updatedAt: '2026-11-21T11:00:00.000Z',
};

beforeEach(() => {
  ddb.reset();
});

describe('DynamoDbAccountStore.get', () => {
  it('reads the account consistently (a plan change is seen at once)', async () => {
    ddb.on(GetCommand).resolves({ Item: account });
    expect(await store.get('acct_1')).toEqual(account);
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: TABLE, Key: { accountId: 'acct_1' }, ConsistentRead: true },
    ]);
  });

  it('returns undefined for an unknown account', async () => {
    ddb.on(GetCommand).resolves({});
    expect(await store.get('acct_1')).toBeUndefined();
  });
});

describe('DynamoDbAccountStore.create', () => {
  it('puts the account only if none has its id', async () => {
    ddb.on(PutCommand).resolves({});
    await store.create(account);
    expect(putInputs()).toEqual([
      { TableName: TABLE, Item: account, ConditionExpression: 'attribute_not_exists(accountId)' },
    ]);
  });

  it('lets the condition failure of an existing account propagate', async () => {
    const failed = conditionFailed();
    ddb.on(PutCommand).rejects(failed);
    await expect(store.create(account)).rejects.toBe(failed);
  });
});

describe('DynamoDbAccountStore.replace', () => {
  it('puts the whole account only if it exists (dropped attributes are gone)', async () => {
    ddb.on(PutCommand).resolves({});
    const business: AccountRecord = {
      accountId: 'acct_1',
      name: 'Acme',
      plan: 'business',
      createdAt: '2026-11-21T10:15:00.000Z',
      updatedAt: '2026-11-22T09:00:00.000Z',
    };
    await store.replace(business);
    expect(putInputs()).toEqual([
      { TableName: TABLE, Item: business, ConditionExpression: 'attribute_exists(accountId)' },
    ]);
  });

  it('lets the condition failure of an unknown account propagate', async () => {
    const failed = conditionFailed();
    ddb.on(PutCommand).rejects(failed);
    await expect(store.replace(account)).rejects.toBe(failed);
  });
});
