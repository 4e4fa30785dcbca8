import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { PlanId, RateLimits } from '../../lib/config/index.js';

export interface AccountRecord {
  readonly accountId: string;
  readonly name: string;
  readonly plan: PlanId;
  /** Agreed per-account limits (Enterprise). */
  readonly limits?: RateLimits;
  readonly createdAt: string;
}

export interface AccountStore {
  get(accountId: string): Promise<AccountRecord | undefined>;
  put(account: AccountRecord): Promise<void>;
}

export class DynamoDbAccountStore implements AccountStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(accountId: string): Promise<AccountRecord | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { accountId } }));
    return result.Item as AccountRecord | undefined;
  }

  async put(account: AccountRecord): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: account }));
  }
}
