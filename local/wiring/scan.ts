import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';

/** Every item of a table, page by page: what the local platform rebuilds its in-memory state from with --data. */
export async function scanAll(client: DynamoDBDocumentClient, tableName: string): Promise<unknown[]> {
  const items: unknown[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}
