import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DOMAIN_TABLE_KEYS } from '../../contracts/domains.js';
import { conditionally, getItem, queryIndex } from '../shared/dynamodb.js';
import { conditionalUpdate } from '../shared/dynamodb-update.js';
import { type ProjectChanges, type ProjectStore, SlugTakenError } from './ports.js';
import type { DeployState, ProjectRecord } from './project.js';

/** A marker `slug#<slug>` names its project (`owner`), or holds the slug of a deleted one (`heldUntil`). */
const slugKey = (slug: string) => `slug#${slug}`;
type SlugMarker = { owner?: string; heldUntil?: string };

export class DynamoDbProjectStore implements ProjectStore {
  constructor(private readonly client: DynamoDBDocumentClient, private readonly tableName: string) {}

  async create(project: ProjectRecord, nowIso: string): Promise<void> {
    const claimed = await conditionally(() =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { projectId: slugKey(project.slug), owner: project.projectId },
          ConditionExpression: 'attribute_not_exists(projectId) OR (attribute_not_exists(#owner) AND heldUntil < :now)',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':now': nowIso },
        }),
      ),
    );
    if (!claimed) {
      const marker = await getItem<SlugMarker>(this.client, this.tableName, { projectId: slugKey(project.slug) });
      const heldUntil = marker?.owner === undefined ? marker?.heldUntil : undefined;
      throw new SlugTakenError(project.slug, heldUntil);
    }
    try {
      await this.client.send(
        new PutCommand({ TableName: this.tableName, Item: project, ConditionExpression: 'attribute_not_exists(projectId)' }),
      );
    } catch (error) {
      // No transactions (dynalite has none): give the slug back so nothing is half-created.
      const slugItem = { projectId: slugKey(project.slug) };
      await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: slugItem }));
      throw error;
    }
  }

  async get(projectId: string): Promise<ProjectRecord | undefined> {
    if (projectId.startsWith('slug#')) return undefined;
    return getItem(this.client, this.tableName, { projectId });
  }

  listByAccount(accountId: string): Promise<ProjectRecord[]> {
    return queryIndex(this.client, this.tableName, DOMAIN_TABLE_KEYS.projects.accountIndex, accountId);
  }

  update(projectId: string, changes: ProjectChanges, expectedDeployState?: DeployState): Promise<boolean> {
    const Key = { projectId };
    const expression = conditionalUpdate('projectId', changes, { deployState: expectedDeployState });
    return conditionally(() => this.client.send(new UpdateCommand({ TableName: this.tableName, Key, ...expression })));
  }

  async delete(project: ProjectRecord, heldUntil: string): Promise<void> {
    // The hold first: the slug is never free between the two writes.
    const hold = { projectId: slugKey(project.slug), heldUntil };
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: hold }));
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: { projectId: project.projectId } }));
  }
}
