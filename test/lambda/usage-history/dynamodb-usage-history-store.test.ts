import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLimiterStore } from '../../../lambda/rate-limits/dynamodb-limiter-store.js';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';
import { DynamoDbUsageHistoryStore, historyItemId } from '../../../lambda/usage-history/dynamodb-usage-history-store.js';
import { createTables, LOCAL_AWS, LOCAL_TABLE_NAMES, type RunningService, startDynamoDb } from '../../../local/emulators.js';

// Against dynalite: the update expressions are judged by a DynamoDB implementation.
const TABLE = LOCAL_TABLE_NAMES.rateLimits;

let dynamodb: RunningService;
let client: ReturnType<typeof createDocumentClient>;
let raw: DynamoDBDocumentClient;
let store: DynamoDbUsageHistoryStore;

beforeAll(async () => {
  dynamodb = await startDynamoDb();
  await createTables(dynamodb.endpoint);
  client = createDocumentClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint });
  raw = DynamoDBDocumentClient.from(new DynamoDBClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint }));
  store = new DynamoDbUsageHistoryStore(client, TABLE);
});

afterAll(async () => {
  client.destroy();
  raw.destroy();
  await dynamodb.stop();
});

describe('DynamoDbUsageHistoryStore', () => {
  it('adds a batch\'s accepted counts to the account\'s day item, with its expiry 36 days after the day starts', async () => {
    await store.addAccepted('acct_1', '2026-11-21', new Map([['key_a', 3], ['key_b', 1]]));
    await store.addAccepted('acct_1', '2026-11-21', new Map([['key_a', 2], ['key_c', 0]]));
    const item = (await raw.send(new GetCommand({ TableName: TABLE, Key: { id: historyItemId('acct_1', '2026-11-21') } }))).Item;
    expect(item).toEqual({
      id: 'usage#acct_1#2026-11-21',
      'accepted:key_a': 5,
      'accepted:key_b': 1,
      expiresAt: Date.UTC(2026, 11, 27) / 1000,
    });
  });

  it('reads accepted counts per day and key, leaving out days without an item', async () => {
    await store.addAccepted('acct_2', '2026-11-20', new Map([['key_x', 4]]));
    await store.addAccepted('acct_2', '2026-11-22', new Map([['key_x', 1], ['key_y', 6]]));
    const days = await store.acceptedOn('acct_2', ['2026-11-20', '2026-11-21', '2026-11-22']);
    expect([...days].map(([date, perKey]) => [date, Object.fromEntries(perKey)])).toEqual([
      ['2026-11-20', { key_x: 4 }],
      ['2026-11-22', { key_x: 1, key_y: 6 }],
    ]);
  });

  it('reads each key\'s refusals per day from its limiter item, and nothing for a key without one', async () => {
    const limiter = new DynamoDbLimiterStore(client, TABLE);
    await limiter.restartStrikes('key#key_r', undefined, 1, { counter: 'rateLimited:2026-11-21' });
    await limiter.adjustCounters('key#key_r', { 'banned:2026-11-21': 4, 'banned:2026-11-19': 2 });
    const refusals = await store.refusalsOf(['key_r', 'key_none']);
    expect(Object.fromEntries([...refusals].map(([keyId, days]) => [keyId, Object.fromEntries(days)]))).toEqual({
      key_r: { '2026-11-21': { rateLimited: 1, banned: 4 }, '2026-11-19': { rateLimited: 0, banned: 2 } },
      key_none: {},
    });
  });
});
