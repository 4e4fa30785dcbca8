import { type DynamoDBDocumentClient as DocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { PlanId, RateLimits } from '../../contracts/plans.js';

export interface AccountRecord {
  readonly accountId: string;
  readonly name: string;
  readonly plan: PlanId;
  /** Agreed per-account limits (Enterprise). */
  readonly limits?: RateLimits;
  /** The account's own usage plan (Enterprise), created by the account service. */
  readonly gatewayUsagePlanId?: string;
  /**
   * The account's one internal API Gateway key in its plan's usage plan (the backstop), with its
   * value; every key record of the account holds a copy. Absent when the account is pooled (the
   * API keys quota was reached: Free and Pro only) or was created before keys were per account.
   */
  readonly gatewayKeyId?: string;
  readonly gatewayKeyValue?: string;
  readonly createdAt: string;
  readonly updatedAt?: string;
}

export interface AccountStore {
  get(accountId: string): Promise<AccountRecord | undefined>;
  /** Stores a new account; refuses to overwrite an existing one. */
  create(account: AccountRecord): Promise<void>;
  /** Replaces an existing account. */
  replace(account: AccountRecord): Promise<void>;
}

export class DynamoDbAccountStore implements AccountStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async get(accountId: string): Promise<AccountRecord | undefined> {
    const result = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { accountId }, ConsistentRead: true }),
    );
    return result.Item as AccountRecord | undefined;
  }

  async create(account: AccountRecord): Promise<void> {
    await this.client.send(
      new PutCommand({ TableName: this.tableName, Item: account, ConditionExpression: 'attribute_not_exists(accountId)' }),
    );
  }

  async replace(account: AccountRecord): Promise<void> {
    await this.client.send(
      new PutCommand({ TableName: this.tableName, Item: account, ConditionExpression: 'attribute_exists(accountId)' }),
    );
  }
}
