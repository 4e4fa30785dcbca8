import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbIdempotencyStore } from '../../../lambda/messages/dynamodb-idempotency-store.js';
import type { IdempotencyEntry } from '../../../lambda/messages/ports.js';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';

const TABLE = 'Idempotency';
const NOW_MS = Date.UTC(2026, 10, 21, 10, 15, 30, 999);
const NOW_SEC = Date.UTC(2026, 10, 21, 10, 15, 30) / 1000;
const client = createDocumentClient({ region: 'eu-west-1' });
const ddb = mockClient(client);
const store = new DynamoDbIdempotencyStore(client, TABLE);

const entry: IdempotencyEntry = {
  id: 'key_1#order-1',
  requestHash: 'a'.repeat(64),
  messageId: 'msg_01JD8X3Q5Z8M2N4P6R7S9T0V1W',
  statusCode: 202,
  responseBody: '{"id":"msg_01JD8X3Q5Z8M2N4P6R7S9T0V1W"}',
  location: '/messages/msg_01JD8X3Q5Z8M2N4P6R7S9T0V1W',
  createdAtMs: NOW_MS,
  expiresAt: NOW_SEC + 86_400,
};
const existing: IdempotencyEntry = {
  ...entry,
  messageId: 'msg_01JD8X3Q5Z8M2N4P6R7S9T0V00',
  requestHash: 'b'.repeat(64),
};
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'x', $metadata: {} });
const claimPut = {
  TableName: TABLE,
  Item: entry,
  ConditionExpression: 'attribute_not_exists(id) OR expiresAt < :nowSec',
  ExpressionAttributeValues: { ':nowSec': NOW_SEC },
  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
};
const putInputs = () => ddb.commandCalls(PutCommand).map((c) => c.args[0].input);

beforeEach(() => {
  ddb.reset();
});

describe('claim', () => {
  it('puts the entry if there is none or it has expired (TTL is lazy), with now in whole seconds', async () => {
    ddb.on(PutCommand).resolves({});
    expect(await store.claim(entry, NOW_MS)).toEqual({ claimed: true });
    expect(putInputs()).toEqual([claimPut]);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('returns the live entry that DynamoDB sends back with the refusal, without reading it', async () => {
    // The document client unmarshals the refusal's Item (lambda/shared/dynamodb.ts); the mock stands after it.
    ddb.on(PutCommand).rejects(Object.assign(conditionFailed(), { Item: existing }));
    expect(await store.claim(entry, NOW_MS)).toEqual({ claimed: false, existing });
    expect(putInputs()).toEqual([claimPut]);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('propagates a refusal without the entry (a table that does not honour ALL_OLD)', async () => {
    ddb.on(PutCommand).rejects(conditionFailed());
    await expect(store.claim(entry, NOW_MS)).rejects.toThrow(ConditionalCheckFailedException);
  });

  it('propagates other errors', async () => {
    ddb.on(PutCommand).rejects(new Error('network'));
    await expect(store.claim(entry, NOW_MS)).rejects.toThrow('network');
  });
});

describe('takeOver', () => {
  const takeOverPut = {
    TableName: TABLE,
    Item: entry,
    ConditionExpression: 'messageId = :stale',
    ExpressionAttributeValues: { ':stale': existing.messageId },
  };

  it('replaces the stale entry only if it still holds the message id that was seen', async () => {
    ddb.on(PutCommand).resolves({});
    expect(await store.takeOver(existing, entry)).toBe(true);
    expect(putInputs()).toEqual([takeOverPut]);
  });

  it('answers false when someone else took it over first', async () => {
    ddb.on(PutCommand).rejects(conditionFailed());
    expect(await store.takeOver(existing, entry)).toBe(false);
  });
});

describe('release', () => {
  const releaseDelete = {
    TableName: TABLE,
    Key: { id: 'key_1#order-1' },
    ConditionExpression: 'messageId = :mine',
    ExpressionAttributeValues: { ':mine': entry.messageId },
  };

  it('deletes the entry only if it is still ours', async () => {
    ddb.on(DeleteCommand).resolves({});
    await store.release('key_1#order-1', entry.messageId);
    expect(ddb.commandCalls(DeleteCommand).map((c) => c.args[0].input)).toEqual([releaseDelete]);
  });

  it('leaves an entry that another request took over, without an error', async () => {
    ddb.on(DeleteCommand).rejects(conditionFailed());
    await expect(store.release('key_1#order-1', entry.messageId)).resolves.toBeUndefined();
  });

  it('propagates other errors', async () => {
    ddb.on(DeleteCommand).rejects(new Error('network'));
    await expect(store.release('key_1#order-1', entry.messageId)).rejects.toThrow('network');
  });
});
