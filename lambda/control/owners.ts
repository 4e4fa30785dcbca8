import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type AccountService, newAccountId } from '../keys/account-service.js';
import { type Clock, nowIso } from '../shared/clock.js';
import { conditionally, getItem } from '../shared/dynamodb.js';

/** A signed-in person (Cognito user, or the local development sign-in) and the account they own. */
export interface OwnerLink {
  /** Cognito `sub` (or `dev:<email>` locally): stable, unlike the email. */
  readonly ownerId: string;
  readonly accountId: string;
  readonly email?: string;
  readonly createdAt: string;
}

export interface OwnerStore {
  get(ownerId: string): Promise<OwnerLink | undefined>;
  /** Stores the link unless the owner has one already; answers the link in force. */
  link(link: OwnerLink): Promise<OwnerLink>;
}

export interface Owner {
  readonly ownerId: string;
  readonly email?: string;
}

// Account names are at most 100 characters.
const accountNameFor = (owner: Owner) => (owner.email ?? 'My account').slice(0, 100);

/**
 * Which account an owner acts on: the first sign-in creates a Free account. The link is written
 * before the account, so an interrupted first sign-in is completed by the next request.
 */
export class OwnerDirectory {
  /** Links never change: cached for the life of the process. */
  private readonly ensured = new Map<string, string>();

  constructor(
    private readonly deps: {
      readonly store: OwnerStore;
      readonly accountService: AccountService;
      readonly clock: Clock;
    },
  ) {}

  /** The owner's account id, creating the link and a Free account on first use. */
  async ensureAccount(owner: Owner): Promise<string> {
    const cached = this.ensured.get(owner.ownerId);
    if (cached) return cached;
    const link =
      (await this.deps.store.get(owner.ownerId)) ??
      (await this.deps.store.link({
        ownerId: owner.ownerId,
        accountId: newAccountId(),
        ...(owner.email ? { email: owner.email } : {}),
        createdAt: nowIso(this.deps.clock),
      }));
    await this.deps.accountService.ensureAccount({ accountId: link.accountId, name: accountNameFor(owner), plan: 'free' });
    this.ensured.set(owner.ownerId, link.accountId);
    return link.accountId;
  }
}

export class DynamoDbOwnerStore implements OwnerStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  get(ownerId: string): Promise<OwnerLink | undefined> {
    return getItem(this.client, this.tableName, { ownerId });
  }

  async link(link: OwnerLink): Promise<OwnerLink> {
    const stored = await conditionally(() =>
      this.client.send(new PutCommand({ TableName: this.tableName, Item: link, ConditionExpression: 'attribute_not_exists(ownerId)' })),
    );
    if (stored) return link;
    // Another first request of the same owner won the race: its link is the one in force.
    const existing = await this.get(link.ownerId);
    if (!existing) throw new Error(`owner ${link.ownerId} link vanished`);
    return existing;
  }
}
