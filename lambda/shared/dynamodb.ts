import { DocumentClient, type DocumentClientConfig, QueryCommand } from './aws/dynamodb.js';

/** The platform's DynamoDB client (lambda/shared/aws): native values, undefined attributes left out. */
export function createDocumentClient(config: DocumentClientConfig = {}): DocumentClient {
  return new DocumentClient(config);
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

/** Every item of one partition of a secondary index, following LastEvaluatedKey through all pages. */
export async function queryIndex<T>(
  client: DocumentClient,
  query: { tableName: string; indexName: string; partitionKey: string; value: string },
): Promise<T[]> {
  const items: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: query.tableName,
        IndexName: query.indexName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': query.partitionKey },
        ExpressionAttributeValues: { ':pk': query.value },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...((page.Items ?? []) as T[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}
