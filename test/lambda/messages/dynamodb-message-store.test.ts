import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchWriteError, DynamoDbMessageStore } from '../../../lambda/messages/dynamodb-message-store.js';
import type { MessageRecord } from '../../../lambda/messages/message.js';
import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SDK_THROTTLING } from '../../../lambda/shared/backoff.js';
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
const removeInput = (id: string) => ({
  TableName: TABLE,
  Key: { id },
  ConditionExpression: 'attribute_not_exists(id) OR #status = :queued',
  ExpressionAttributeNames: { '#status': 'status' },
  ExpressionAttributeValues: { ':queued': 'queued' },
});
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

  it('deletes by id while the record is queued (or absent), and says so', async () => {
    ddb.on(DeleteCommand).resolves({});
    expect(await store.remove(ID)).toBe(true);
    expect(ddb.commandCalls(DeleteCommand).map((c) => c.args[0].input)).toEqual([removeInput(ID)]);
  });

  it('leaves a record the worker already moved on, answering false', async () => {
    ddb.on(DeleteCommand).rejects(conditionFailed());
    expect(await store.remove(ID)).toBe(false);
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
        ConditionExpression: 'attribute_exists(id) AND #status IN (:queued, :failed)',
        ExpressionAttributeNames: { '#status': 'status', '#stamp': 'processedAt' },
        ExpressionAttributeValues: { ':to': 'processed', ':at': AT, ':queued': 'queued', ':failed': 'failed' },
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
  it('moves queued (or a redriven failed) to failed', async () => {
    ddb.on(UpdateCommand).resolves({});
    expect((await store.markFailed(ID, AT)).result).toBe('updated');
    expect(ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: TABLE,
        Key: { id: ID },
        UpdateExpression: 'SET #status = :to, #stamp = :at',
        ConditionExpression: 'attribute_exists(id) AND #status IN (:queued, :failed)',
        ExpressionAttributeNames: { '#status': 'status', '#stamp': 'failedAt' },
        ExpressionAttributeValues: { ':to': 'failed', ':at': AT, ':queued': 'queued', ':failed': 'failed' },
        ReturnValues: 'ALL_OLD',
      },
    ]);
  });

  it('tells who sent the message and when it was accepted, from the record as it was before the transition', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { ...record, status: 'queued' } });
    expect(await store.markFailed(ID, AT)).toEqual({
      result: 'updated',
      before: { accountId: record.accountId, keyId: record.keyId, createdAt: record.createdAt, status: 'queued' },
      after: { ...record, status: 'failed', failedAt: AT },
    });
  });

  it('writes the attempt count and the error with the transition, and returns the record as it left it', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: record });
    const transition = await store.markFailed(ID, AT, { attempts: 2, lastError: 'refused' });
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input).toMatchObject({
      UpdateExpression: 'SET #status = :to, #stamp = :at, #attempts = :attempts, #lastError = :lastError',
      ExpressionAttributeNames: { '#attempts': 'attempts', '#lastError': 'lastError' },
      ExpressionAttributeValues: { ':attempts': 2, ':lastError': 'refused' },
    });
    expect(transition.after).toEqual({ ...record, status: 'failed', failedAt: AT, attempts: 2, lastError: 'refused' });
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

describe('recordFailedAttempt', () => {
  it('sets the count and the error on a record that is not processed, and ignores one that is', async () => {
    ddb.on(UpdateCommand).resolvesOnce({}).rejectsOnce(conditionFailed());
    await store.recordFailedAttempt(ID, { attempts: 1, lastError: 'timeout' });
    await expect(store.recordFailedAttempt(ID, { attempts: 2, lastError: 'late' })).resolves.toBeUndefined();
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input).toEqual({
      TableName: TABLE,
      Key: { id: ID },
      UpdateExpression: 'SET attempts = :attempts, lastError = :lastError',
      ConditionExpression: 'attribute_exists(id) AND #status IN (:queued, :failed)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':attempts': 1, ':lastError': 'timeout', ':queued': 'queued', ':failed': 'failed' },
    });
  });
});

describe('listByAccount', () => {
  it('is one Query on the account index, newest first, from the cursor, with the next key', async () => {
    const last = { id: ID, accountId: 'acct_1', createdAt: record.createdAt };
    ddb.on(QueryCommand).resolves({ Items: [record], LastEvaluatedKey: last });
    const page = await store.listByAccount({ accountId: 'acct_1', limit: 1, startAfter: { ...last, id: 'msg_x' } });
    expect(page).toEqual({ records: [record], next: last });
    expect(ddb.commandCalls(QueryCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: TABLE,
        IndexName: 'byAccount',
        KeyConditionExpression: '#account = :account',
        ExpressionAttributeNames: { '#account': 'accountId' },
        ExpressionAttributeValues: { ':account': 'acct_1' },
        ScanIndexForward: false,
        Limit: 1,
        ExclusiveStartKey: { ...last, id: 'msg_x' },
      },
    ]);
  });

  it('filters by status in the same Query; no next key on the last page', async () => {
    ddb.on(QueryCommand).resolves({ Items: [] });
    expect(await store.listByAccount({ accountId: 'acct_1', status: 'failed', limit: 50 })).toEqual({ records: [] });
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      FilterExpression: '#status = :status',
      ExpressionAttributeNames: { '#account': 'accountId', '#status': 'status' },
      ExpressionAttributeValues: { ':account': 'acct_1', ':status': 'failed' },
    });
  });
});

describe('createAll and removeAll (a batch)', () => {
  // A store whose BatchWriteItem client is its own (no SDK retries), as lambda/messages/send-handler.ts builds it.
  const singleAttemptClient = createDocumentClient({ region: 'eu-west-1', maxAttempts: 1 });
  const batchDdb = mockClient(singleAttemptClient);
  // No real wait between a batch's attempts (the waits are the helper's, tested in test/lambda/shared/backoff.test.ts).
  const pacing = { sleep: async () => undefined, random: Math.random };
  const batchStore = new DynamoDbMessageStore(client, TABLE, singleAttemptClient, pacing);
  const records = (n: number): MessageRecord[] =>
    Array.from({ length: n }, (_, i) => ({ ...record, id: `msg_01JD8X3Q5Z8M2N4P6R7S9T${String(i).padStart(4, '0')}` }));
  const puts = (rs: readonly MessageRecord[]) => ({ [TABLE]: rs.map((r) => ({ PutRequest: { Item: r } })) });
  const batchInputs = () => batchDdb.commandCalls(BatchWriteCommand).map((c) => c.args[0].input);
  const throttled = () =>
    new ProvisionedThroughputExceededException({ message: 'Rate of requests exceeds the allowed throughput', $metadata: {} });

  beforeEach(() => {
    batchDdb.reset();
    // The backoff's jitter draws 0: the retries run without waiting (the wait itself has its own test).
    vi.spyOn(Math, 'random').mockReturnValue(0);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('writes the records in BatchWriteItem chunks of 25, in order, through the single-attempt client', async () => {
    batchDdb.on(BatchWriteCommand).resolves({});
    const all = records(60);
    await batchStore.createAll(all);
    expect(batchInputs()).toEqual([
      { RequestItems: puts(all.slice(0, 25)) },
      { RequestItems: puts(all.slice(25, 50)) },
      { RequestItems: puts(all.slice(50, 60)) },
    ]);
    expect(ddb.commandCalls(BatchWriteCommand)).toEqual([]);
    expect(ddb.commandCalls(PutCommand)).toEqual([]);
  });

  it('sends the unprocessed items again, and only them, until DynamoDB takes them', async () => {
    const all = records(3);
    batchDdb
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: puts([all[0] as MessageRecord, all[2] as MessageRecord]) })
      .resolvesOnce({ UnprocessedItems: puts([all[2] as MessageRecord]) })
      .resolvesOnce({});
    await batchStore.createAll(all);
    expect(batchInputs()).toEqual([
      { RequestItems: puts(all) },
      { RequestItems: puts([all[0] as MessageRecord, all[2] as MessageRecord]) },
      { RequestItems: puts([all[2] as MessageRecord]) },
    ]);
  });

  it('fails with BatchWriteError naming what is left when items stay unprocessed after 3 attempts', async () => {
    const all = records(4);
    batchDdb.on(BatchWriteCommand).resolves({ UnprocessedItems: puts(all.slice(1)) });
    const error = await batchStore.createAll(all).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchWriteError);
    expect(error).toMatchObject({ left: 3 });
    expect((error as Error).message).toBe('BatchWriteItem left 3 put requests unprocessed after its retries');
    expect(batchInputs()).toHaveLength(3);
  });

  it('waits a backoff before sending unprocessed items again', async () => {
    const all = records(2);
    batchDdb
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: puts(all.slice(1)) })
      .resolvesOnce({});
    // Each wait, with how many BatchWriteItems were sent when it began.
    const waited: Array<{ ms: number; sentBefore: number }> = [];
    const sleep = async (ms: number) => void waited.push({ ms, sentBefore: batchInputs().length });
    await new DynamoDbMessageStore(client, TABLE, singleAttemptClient, { sleep, random: () => 0.5 }).createAll(all);
    expect(waited).toEqual([{ ms: SDK_THROTTLING.baseMs / 2, sentBefore: 1 }]);
    expect(batchInputs()).toHaveLength(2);
  });

  it('retries a chunk refused whole by throttling, the same records again', async () => {
    const all = records(2);
    batchDdb.on(BatchWriteCommand).rejectsOnce(throttled()).resolvesOnce({});
    await batchStore.createAll(all);
    expect(batchInputs()).toEqual([{ RequestItems: puts(all) }, { RequestItems: puts(all) }]);
    expect(ddb.commandCalls(PutCommand)).toEqual([]);
  });

  it('fails with BatchWriteError when throttling lasts through 3 attempts', async () => {
    batchDdb.on(BatchWriteCommand).rejects(throttled());
    await expect(batchStore.createAll(records(2))).rejects.toMatchObject({ name: 'BatchWriteError', left: 2 });
    expect(batchInputs()).toHaveLength(3);
  });

  it('falls back to conditional PutItems when a BatchWriteItem fails otherwise (it may have landed)', async () => {
    const all = records(2);
    batchDdb.on(BatchWriteCommand).rejects(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }));
    ddb.on(PutCommand).resolves({});
    await batchStore.createAll(all);
    expect(batchInputs()).toHaveLength(1);
    expect(ddb.commandCalls(PutCommand).map((c) => c.args[0].input)).toEqual(
      all.map((r) => ({ TableName: TABLE, Item: r, ConditionExpression: 'attribute_not_exists(id)' })),
    );
  });

  it('leaves a record the worker already moved on alone in the fallback (its condition fails quietly)', async () => {
    batchDdb.on(BatchWriteCommand).rejects(new Error('socket hang up'));
    ddb.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});
    await expect(batchStore.createAll(records(2))).resolves.toBeUndefined();
  });

  it('fails when a fallback PutItem fails', async () => {
    batchDdb.on(BatchWriteCommand).rejects(new Error('socket hang up'));
    ddb.on(PutCommand).rejects(new Error('service unavailable'));
    await expect(batchStore.createAll(records(2))).rejects.toThrow('service unavailable');
  });

  it('removes each record with its own conditional delete, side by side, answering the ids the worker had taken', async () => {
    const ids = records(30).map((r) => r.id);
    const taken = ids[3] as string;
    ddb.on(DeleteCommand).callsFake((input: { Key: { id: string } }) => {
      if (input.Key.id === taken) throw conditionFailed();
      return {};
    });
    expect(await batchStore.removeAll(ids)).toEqual([taken]);
    expect(ddb.commandCalls(DeleteCommand).map((c) => c.args[0].input)).toEqual(ids.map(removeInput));
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });
});
