import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbMessageStore } from '../../../lambda/messages/dynamodb-message-store.js';
import type { MessageRecord } from '../../../lambda/messages/message.js';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';

const TABLE = 'Messages';
const ID = 'msg_01JD8X3Q5Z8M2N4P6R7S9T0V1W';
const AT = '2026-11-21T10:15:31.500Z';
const client = createDocumentClient({ region: 'eu-west-1' });
const ddb = mockClient(client);
const store = new DynamoDbMessageStore(client, TABLE);

const record: MessageRecord = {
  id: ID,
  accountId: 'acct_1',
  keyId: 'key_1',
  message: 'Hello, world',
  status: 'queued',
  createdAt: '2026-11-21T10:15:30.123Z',
  expiresAt: 1_797_848_130,
};
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'x', $metadata: {} });
const getInputs = () => ddb.commandCalls(GetCommand).map((c) => c.args[0].input);

beforeEach(() => {
  ddb.reset();
});

describe('create', () => {
  it('puts the record only if no record has that id', async () => {
    ddb.on(PutCommand).resolves({});
    await store.create(record);
    expect(ddb.commandCalls(PutCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: TABLE, Item: record, ConditionExpression: 'attribute_not_exists(id)' },
    ]);
  });

  it('does not overwrite an existing record and does not fail (the worker got there first)', async () => {
    ddb.on(PutCommand).rejects(conditionFailed());
    await expect(store.create(record)).resolves.toBeUndefined();
  });

  it('propagates other errors', async () => {
    ddb.on(PutCommand).rejects(new Error('network'));
    await expect(store.create(record)).rejects.toThrow('network');
  });
});

describe('get and remove', () => {
  it('reads consistently', async () => {
    ddb.on(GetCommand).resolves({ Item: record });
    expect(await store.get(ID)).toEqual(record);
    expect(getInputs()).toEqual([{ TableName: TABLE, Key: { id: ID }, ConsistentRead: true }]);
  });

  it('returns undefined when there is no record', async () => {
    ddb.on(GetCommand).resolves({});
    expect(await store.get(ID)).toBeUndefined();
  });

  it('deletes by id', async () => {
    ddb.on(DeleteCommand).resolves({});
    await store.remove(ID);
    expect(ddb.commandCalls(DeleteCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: TABLE, Key: { id: ID } },
    ]);
  });
});

describe('markProcessed', () => {
  it('moves queued or failed to processed with one conditional update', async () => {
    ddb.on(UpdateCommand).resolves({});
    expect((await store.markProcessed(ID, AT)).result).toBe('updated');
    expect(ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression: 'SET #status = :to, #stamp = :at',
        ConditionExpression: 'attribute_exists(id) AND #status IN (:from0, :from1)',
        ExpressionAttributeNames: { '#status': 'status', '#stamp': 'processedAt' },
        ExpressionAttributeValues: { ':to': 'processed', ':at': AT, ':from0': 'queued', ':from1': 'failed' },
        ReturnValues: 'ALL_OLD',
      },
    ]);
    expect(getInputs()).toEqual([]);
  });

  it('answers \'already_done\' when the condition fails and the record exists', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    ddb.on(GetCommand).resolves({ Item: { ...record, status: 'processed', processedAt: AT } });
    expect((await store.markProcessed(ID, AT)).result).toBe('already_done');
    expect(getInputs()).toEqual([{ TableName: TABLE, Key: { id: ID }, ConsistentRead: true }]);
  });

  it('answers \'missing\' when the condition fails and there is no record', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    ddb.on(GetCommand).resolves({});
    expect((await store.markProcessed(ID, AT)).result).toBe('missing');
  });

  it('propagates other errors without reading', async () => {
    ddb.on(UpdateCommand).rejects(new Error('throttled'));
    await expect(store.markProcessed(ID, AT)).rejects.toThrow('throttled');
    expect(getInputs()).toEqual([]);
  });
});

describe('markFailed', () => {
  it('moves only queued to failed', async () => {
    ddb.on(UpdateCommand).resolves({});
    expect((await store.markFailed(ID, AT)).result).toBe('updated');
    expect(ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression: 'SET #status = :to, #stamp = :at',
        ConditionExpression: 'attribute_exists(id) AND #status IN (:from0)',
        ExpressionAttributeNames: { '#status': 'status', '#stamp': 'failedAt' },
        ExpressionAttributeValues: { ':to': 'failed', ':at': AT, ':from0': 'queued' },
        ReturnValues: 'ALL_OLD',
      },
    ]);
  });

  it('tells who sent the message and when it was accepted, from the record as it was before the transition', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { ...record, status: 'queued' } });
    expect(await store.markFailed(ID, AT)).toEqual({
      result: 'updated',
      before: { accountId: record.accountId, keyId: record.keyId, createdAt: record.createdAt, status: 'queued' },
    });
  });

  it('answers \'already_done\' for a record that is no longer queued, \'missing\' for none', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    ddb
      .on(GetCommand)
      .resolvesOnce({ Item: { ...record, status: 'processed' } })
      .resolvesOnce({});
    expect((await store.markFailed(ID, AT)).result).toBe('already_done');
    expect((await store.markFailed(ID, AT)).result).toBe('missing');
  });
});
