import { type DynamoDBDocumentClient as DocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DOMAIN_TABLE_KEYS } from '../../lib/constructs/domains/runtime-contract.js';
import { conditionally, queryIndex } from '../shared/dynamodb.js';
import { conditionalUpdate } from '../shared/dynamodb-update.js';
import type { DomainRecord } from './domain-record.js';
import type { DomainStore } from './ports.js';

export class DynamoDbDomainStore implements DomainStore {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(record: DomainRecord): Promise<DomainRecord | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await conditionally(() =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: record,
            // One project per domain platform-wide; a removed domain can be added again.
            ConditionExpression: 'attribute_not_exists(#domain) OR #state = :removed',
            ExpressionAttributeNames: { '#domain': 'domain', '#state': 'state' },
            ExpressionAttributeValues: { ':removed': 'removed' },
          }),
        ),
      );
      if (claimed) return undefined;
      const holder = await this.get(record.domain);
      if (holder && holder.state !== 'removed') return holder;
    }
    throw new Error(`domain ${record.domain} is contended`);
  }

  async get(domain: string): Promise<DomainRecord | undefined> {
    const result = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { domain }, ConsistentRead: true }),
    );
    return result.Item as DomainRecord | undefined;
  }

  async listByProject(projectId: string): Promise<DomainRecord[]> {
    const index = DOMAIN_TABLE_KEYS.domains.projectIndex;
    const items = await queryIndex<DomainRecord>(this.client, {
      tableName: this.tableName,
      indexName: index.name,
      partitionKey: index.partitionKey,
      value: projectId,
    });
    // GSIs are eventually consistent: read each record again for the current state.
    const fresh = await Promise.all(items.map((d) => this.get(d.domain)));
    return fresh.filter((d): d is DomainRecord => d !== undefined && d.projectId === projectId && d.state !== 'removed');
  }

  update(domain: string, changes: Partial<Omit<DomainRecord, 'domain'>>, expectedAttempt?: number): Promise<boolean> {
    const expected = expectedAttempt === undefined ? undefined : { attempt: expectedAttempt };
    return conditionally(() =>
      this.client.send(new UpdateCommand({ TableName: this.tableName, Key: { domain }, ...conditionalUpdate('domain', changes, expected) })),
    );
  }
}
