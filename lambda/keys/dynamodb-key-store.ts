import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord, KeyStore } from './key-store.js';

export class DynamoDbKeyStore implements KeyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { keyHash } }));
    return result.Item as ApiKeyRecord | undefined;
  }

  async put(record: ApiKeyRecord): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: record }));
  }
}
