import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dataPlane, traced } from './aws-clients.js';

/**
 * The document client of the Lambdas, the CLI and the local platform: traced, the request-path
 * retries, and a refused conditional write's `Item` unmarshalled too (lib-dynamodb translates outputs only).
 */
export function createDocumentClient(config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  const client = traced(new DynamoDBClient({ ...dataPlane(), ...config }));
  const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  documents.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        const item = isConditionFailure(error) ? (error as { Item?: unknown }).Item : undefined;
        if (item !== null && typeof item === 'object') {
          Object.assign(error as object, { Item: unmarshall(item as Parameters<typeof unmarshall>[0]) });
        }
        throw error;
      }
    },
    { step: 'initialize', name: 'conditionFailureItem' },
  );
  // lib-dynamodb's destroy does nothing (its DynamoDBClient may be shared); this one owns its client.
  documents.destroy = () => client.destroy();
  return documents;
}

export const isConditionFailure = (error: unknown): boolean =>
  (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';

/** Runs a conditional write; false when its condition failed, other errors propagate. */
export async function conditionally(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** One item by its key, read consistently. */
export async function getItem<T>(client: DynamoDBDocumentClient, table: string, key: Record<string, unknown>) {
  const { Item } = await client.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
  return Item as T | undefined;
}

/** Every item of a paginateQuery or paginateScan (lib-dynamodb), page by page. */
export async function allItems<T>(pages: AsyncIterable<{ Items?: Record<string, unknown>[] }>): Promise<T[]> {
  const items: T[] = [];
  for await (const page of pages) items.push(...((page.Items ?? []) as T[]));
  return items;
}

/** Every item of one partition (`value`) of a secondary index. */
export function queryIndex<T>(
  client: DynamoDBDocumentClient,
  tableName: string,
  index: { readonly name: string; readonly partitionKey: string },
  value: string,
): Promise<T[]> {
  return allItems(
    paginateQuery(
      { client },
      {
        TableName: tableName,
        IndexName: index.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': index.partitionKey },
        ExpressionAttributeValues: { ':pk': value },
      },
    ),
  );
}
