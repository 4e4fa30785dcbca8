import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { createTables, LOCAL_AWS, LOCAL_TABLE_NAMES, type RunningService, startDynamoDb } from '../../../local/emulators.js';
import { DynamoDbLimiterStore } from '../../../lambda/rate-limits/dynamodb-limiter-store.js';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';
import { storeContract } from './store-contract.js';

// Against dynalite, the real DynamoDB protocol peer: the conditions and update expressions are
// judged by a DynamoDB implementation, and the raw item is read back with the SDK, independently.
const TABLE = LOCAL_TABLE_NAMES.rateLimits;

let dynamodb: RunningService;
let store: DynamoDbLimiterStore;
let raw: DynamoDBDocumentClient;
let client: ReturnType<typeof createDocumentClient>;

beforeAll(async () => {
  dynamodb = await startDynamoDb();
  await createTables(dynamodb.endpoint);
  client = createDocumentClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint });
  store = new DynamoDbLimiterStore(client, TABLE);
  raw = DynamoDBDocumentClient.from(new DynamoDBClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint }));
});

afterAll(async () => {
  client.destroy();
  raw.destroy();
  await dynamodb.stop();
});

const rawItem = async (id: string) =>
  (await raw.send(new GetCommand({ TableName: TABLE, Key: { id }, ConsistentRead: true }))).Item;

// The local dynalite honours ReturnValuesOnConditionCheckFailure as DynamoDB does
// (local/dynalite-return-values.ts): a refusal comes with the item.
storeContract('DynamoDbLimiterStore on dynalite', () => ({ store, raw: rawItem, refusalCarriesItem: true }));
