import { type DynamoDBDocumentClient as DocumentClient, paginateScan, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { allItems, conditionally, getItem } from '../shared/dynamodb.js';
import type { PlanId, RateLimits } from '../../contracts/plans.js';

export interface AccountRecord {
  readonly accountId: string;
  readonly name: string;
  readonly plan: PlanId;
  /** Enterprise: the agreed limits and the account's own usage plan. */
  readonly limits?: RateLimits;
  readonly gatewayUsagePlanId?: string;
  /** Its internal API Gateway key (every key record holds a copy); absent when pooled (API keys quota reached). */
  readonly gatewayKeyId?: string;
  readonly gatewayKeyValue?: string;
  readonly createdAt: string;
  readonly updatedAt?: string;
  /** The owner's latest request for a higher plan (upgrade-requests.ts). */
  readonly upgradeRequest?: StoredUpgradeRequest;
}

export interface StoredUpgradeRequest {
  readonly plan: PlanId;
  readonly status: 'pending' | 'approved';
  readonly requestedAt: string;
  readonly requestedBy?: string;
  readonly decidedAt?: string;
}

export interface AccountStore {
  get(accountId: string): Promise<AccountRecord | undefined>;
  /** Stores a new account; refuses to overwrite an existing one. */
  create(account: AccountRecord): Promise<void>;
  /** Replaces an existing account. */
  replace(account: AccountRecord): Promise<void>;
  /** Records the upgrade request, only while the account's plan is still `plan`; false if it is not. */
  setUpgradeRequest(accountId: string, request: StoredUpgradeRequest, plan: PlanId): Promise<boolean>;
  /** Accounts with a pending upgrade request (a full read of the table: operators only). */
  listWithPendingUpgrade(): Promise<AccountRecord[]>;
}

export class DynamoDbAccountStore implements AccountStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  get(accountId: string): Promise<AccountRecord | undefined> {
    return getItem(this.client, this.tableName, { accountId });
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

  setUpgradeRequest(accountId: string, request: StoredUpgradeRequest, plan: PlanId): Promise<boolean> {
    return conditionally(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { accountId },
          UpdateExpression: 'SET upgradeRequest = :request',
          ConditionExpression: 'attribute_exists(accountId) AND #plan = :plan',
          ExpressionAttributeNames: { '#plan': 'plan' },
          ExpressionAttributeValues: { ':request': request, ':plan': plan },
        }),
      ),
    );
  }

  listWithPendingUpgrade(): Promise<AccountRecord[]> {
    return allItems(
      paginateScan(
        { client: this.client },
        {
          TableName: this.tableName,
          FilterExpression: 'upgradeRequest.#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':pending': 'pending' },
        },
      ),
    );
  }
}
