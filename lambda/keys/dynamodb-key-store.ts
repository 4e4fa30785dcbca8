import { type DynamoDBDocumentClient as DocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE_KEYS } from '../../contracts/messages.js';
import { queryIndex } from '../shared/dynamodb.js';
import { conditionalUpdate } from '../shared/dynamodb-update.js';
import type { ApiKeyChanges, ApiKeyRecord, KeyStore } from './key-store.js';

export class DynamoDbKeyStore implements KeyStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { keyHash } }));
    return result.Item as ApiKeyRecord | undefined;
  }

  async put(record: ApiKeyRecord): Promise<void> {
    await this.client.send(
      new PutCommand({ TableName: this.tableName, Item: record, ConditionExpression: 'attribute_not_exists(keyHash)' }),
    );
  }

  listByAccount(accountId: string): Promise<ApiKeyRecord[]> {
    return queryIndex(this.client, this.tableName, TABLE_KEYS.apiKeys.accountIndex, accountId);
  }

  async update(keyHash: string, changes: ApiKeyChanges): Promise<void> {
    if (Object.keys(changes).length === 0) return;
    await this.client.send(new UpdateCommand({ TableName: this.tableName, Key: { keyHash }, ...conditionalUpdate('keyHash', changes) }));
  }
}
