import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand as SdkGetCommand, PutCommand as SdkPutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsCallRecord } from '../../../../lambda/shared/aws/aws-client.js';
import {
  DeleteCommand,
  DocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '../../../../lambda/shared/aws/dynamodb.js';
import { conditionally, isConditionFailure, queryIndex } from '../../../../lambda/shared/dynamodb.js';
import { LOCAL_AWS, type RunningService, startDynamoDb } from '../../../../local/emulators.js';

// Against dynalite (a DynamoDB protocol peer); what is written is read back with the SDK, independently.
const TABLE = 'Things';
let dynamodb: RunningService;
let client: DocumentClient;
let sdk: DynamoDBDocumentClient;
const calls: AwsCallRecord[] = [];

beforeAll(async () => {
  dynamodb = await startDynamoDb();
  const admin = new DynamoDBClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint });
  await admin.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'N' },
        { AttributeName: 'owner', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        { IndexName: 'byOwner', KeySchema: [{ AttributeName: 'owner', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } },
      ],
    }),
  );
  admin.destroy();
  client = new DocumentClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint, onCall: (c) => calls.push(c) });
  sdk = DynamoDBDocumentClient.from(new DynamoDBClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint }));
});

afterAll(async () => {
  client?.destroy();
  sdk?.destroy();
  await dynamodb?.stop();
});

const everyType = {
  pk: 'all',
  sk: 1,
  s: 'text ☃',
  n: 12.5,
  big: 2n ** 60n,
  negative: -7,
  yes: true,
  nothing: null,
  list: [1, 'two', { three: 3 }, [false]],
  map: { nested: { deep: 'x' }, empty: {} },
  strings: new Set(['a', 'b']),
  numbers: new Set([1, 2.5]),
  bytes: new Uint8Array([0, 1, 254, 255]),
  gone: undefined,
};

describe('DocumentClient on dynalite', () => {
  it('puts an item of every supported type that the SDK reads back alike, and gets it', async () => {
    await client.send(new PutCommand({ TableName: TABLE, Item: everyType }));
    const { gone: _gone, ...stored } = everyType;
    const bySdk = (await sdk.send(new SdkGetCommand({ TableName: TABLE, Key: { pk: 'all', sk: 1 } }))).Item;
    const byUs = await client.send(new GetCommand({ TableName: TABLE, Key: { pk: 'all', sk: 1 }, ConsistentRead: true }));
    expect(byUs.Item).toEqual(bySdk);
    expect(byUs.Item).toEqual(stored);
    expect(byUs.$metadata).toMatchObject({ httpStatusCode: 200, attempts: 1 });
  });

  it('reads what the SDK wrote', async () => {
    await sdk.send(new SdkPutCommand({ TableName: TABLE, Item: { pk: 'sdk', sk: 1, n: 3, tags: new Set(['x']) } }));
    expect((await client.send(new GetCommand({ TableName: TABLE, Key: { pk: 'sdk', sk: 1 } }))).Item).toEqual({
      pk: 'sdk',
      sk: 1,
      n: 3,
      tags: new Set(['x']),
    });
  });

  it('answers a missing item with no Item', async () => {
    const result = await client.send(new GetCommand({ TableName: TABLE, Key: { pk: 'none', sk: 0 } }));
    expect(result.Item).toBeUndefined();
  });

  it('fails a put whose condition fails with ConditionalCheckFailedException (isConditionFailure, conditionally)', async () => {
    const put = () =>
      client.send(new PutCommand({ TableName: TABLE, Item: { pk: 'once', sk: 1 }, ConditionExpression: 'attribute_not_exists(pk)' }));
    await put();
    const error = await put().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'ConditionalCheckFailedException', $fault: 'client', $metadata: { httpStatusCode: 400, attempts: 1 } });
    expect(isConditionFailure(error)).toBe(true);
    expect(await conditionally(put)).toBe(false);
  });

  it('updates with ReturnValues ALL_NEW, UPDATED_NEW and ALL_OLD', async () => {
    const key = { pk: 'counter', sk: 1 };
    const add = (returnValues: 'ALL_NEW' | 'UPDATED_NEW' | 'ALL_OLD') =>
      client.send(
        new UpdateCommand({
          TableName: TABLE,
          Key: key,
          UpdateExpression: 'ADD #c :one SET #t = :t',
          ExpressionAttributeNames: { '#c': 'count', '#t': 'tags' },
          ExpressionAttributeValues: { ':one': 1, ':t': new Set(['a']), ':unused': undefined },
          ReturnValues: returnValues,
        }),
      );
    expect((await add('ALL_NEW')).Attributes).toEqual({ pk: 'counter', sk: 1, count: 1, tags: new Set(['a']) });
    expect((await add('UPDATED_NEW')).Attributes).toEqual({ count: 2, tags: new Set(['a']) });
    expect((await add('ALL_OLD')).Attributes).toEqual({ pk: 'counter', sk: 1, count: 2, tags: new Set(['a']) });
    expect((await sdk.send(new SdkGetCommand({ TableName: TABLE, Key: key }))).Item?.count).toBe(3);
  });

  it('fails an update whose condition fails', async () => {
    const error = await client
      .send(
        new UpdateCommand({
          TableName: TABLE,
          Key: { pk: 'counter', sk: 1 },
          UpdateExpression: 'SET #c = :c',
          ConditionExpression: '#c = :expected',
          ExpressionAttributeNames: { '#c': 'count' },
          ExpressionAttributeValues: { ':c': 0, ':expected': 99 },
        }),
      )
      .catch((e: unknown) => e);
    expect(isConditionFailure(error)).toBe(true);
  });

  it('deletes with ALL_OLD, and conditionally', async () => {
    await client.send(new PutCommand({ TableName: TABLE, Item: { pk: 'del', sk: 1, v: 'x' } }));
    const refused = await conditionally(() =>
      client.send(
        new DeleteCommand({
          TableName: TABLE,
          Key: { pk: 'del', sk: 1 },
          ConditionExpression: 'v = :v',
          ExpressionAttributeValues: { ':v': 'y' },
        }),
      ),
    );
    expect(refused).toBe(false);
    const deleted = await client.send(new DeleteCommand({ TableName: TABLE, Key: { pk: 'del', sk: 1 }, ReturnValues: 'ALL_OLD' }));
    expect(deleted.Attributes).toEqual({ pk: 'del', sk: 1, v: 'x' });
    expect((await sdk.send(new SdkGetCommand({ TableName: TABLE, Key: { pk: 'del', sk: 1 } }))).Item).toBeUndefined();
  });

  it('queries page by page with Limit and ExclusiveStartKey, and a secondary index through queryIndex', async () => {
    for (let sk = 1; sk <= 7; sk++) {
      await client.send(new PutCommand({ TableName: TABLE, Item: { pk: 'paged', sk, owner: 'o1', label: `item ${sk}` } }));
    }
    const seen: number[] = [];
    let startKey: Record<string, unknown> | undefined;
    let pages = 0;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'pk = :pk AND sk > :from',
          ExpressionAttributeValues: { ':pk': 'paged', ':from': 0 },
          Limit: 3,
          ExclusiveStartKey: startKey,
        }),
      );
      pages++;
      seen.push(...(page.Items ?? []).map((i) => i.sk as number));
      expect(page.Count).toBe(page.Items?.length);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(pages).toBeGreaterThanOrEqual(3);

    const owned = await queryIndex<{ sk: number }>(client, { tableName: TABLE, indexName: 'byOwner', partitionKey: 'owner', value: 'o1' });
    expect(owned.map((i) => i.sk).sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('scans with a filter across pages', async () => {
    const labels: string[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: TABLE,
          FilterExpression: 'begins_with(label, :p)',
          ExpressionAttributeValues: { ':p': 'item ' },
          Limit: 4,
          ExclusiveStartKey: startKey,
        }),
      );
      labels.push(...(page.Items ?? []).map((i) => i.label as string));
      expect(page.ScannedCount).toBeGreaterThanOrEqual(page.Count ?? 0);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    expect(labels.sort()).toEqual(['item 1', 'item 2', 'item 3', 'item 4', 'item 5', 'item 6', 'item 7']);
  });

  it('reports a missing table as DynamoDB names it, without retrying', async () => {
    const error = await client.send(new GetCommand({ TableName: 'Nope', Key: { pk: 'x', sk: 1 } })).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ResourceNotFoundException', $metadata: { httpStatusCode: 400, attempts: 1 } });
  });

  it('counts each call once for an observer, with the command class names kept', () => {
    expect(calls.length).toBeGreaterThan(10);
    expect(new Set(calls.map((c) => c.operation))).toEqual(new Set(['PutItem', 'GetItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan']));
    expect(new GetCommand({ TableName: TABLE, Key: {} }).constructor.name).toBe('GetCommand');
    expect(new UpdateCommand({ TableName: TABLE, Key: {} }).constructor.name).toBe('UpdateCommand');
  });
});

describe('DocumentClient: the item a refused conditional write carries', () => {
  it('decodes DynamoDB\'s Item of a ConditionalCheckFailedException (asked with ReturnValuesOnConditionCheckFailure)', async () => {
    // dynalite ignores the parameter: a server answering as DynamoDB documents it stands in here.
    const { createServer } = await import('node:http');
    let received: Record<string, unknown> = {};
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received = JSON.parse(body) as Record<string, unknown>;
        res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
          message: 'The conditional request failed',
          Item: { id: { S: 'acct#a' }, m29920935: { N: '60' }, 'key_a/b': { N: '1795257005000' } },
        }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const peer = new DocumentClient({ ...LOCAL_AWS, endpoint: `http://127.0.0.1:${port}` });
    try {
      const error = await peer
        .send(new UpdateCommand({ TableName: TABLE, Key: { id: 'acct#a' }, UpdateExpression: 'ADD n :one', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }))
        .catch((e: unknown) => e);
      expect(received).toMatchObject({ ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
      expect(isConditionFailure(error)).toBe(true);
      expect(error).toMatchObject({ Item: { id: 'acct#a', m29920935: 60, 'key_a/b': 1_795_257_005_000 } });
    } finally {
      peer.destroy();
      server.close();
    }
  });
});
