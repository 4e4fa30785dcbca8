import {
  type DynamoDBDocumentClient as DocumentClient,
  paginateScan,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { DOMAIN_TABLE_KEYS } from '../../contracts/domains.js';
import { conditionally, getItem, queryIndex } from '../shared/dynamodb.js';
import { conditionalUpdate } from '../shared/dynamodb-update.js';
import type { DomainRecord } from './domain-record.js';
import type { DomainExpectation, DomainStore, LiveDomainsPage } from './ports.js';

export class DynamoDbDomainStore implements DomainStore {
  constructor(private readonly client: DocumentClient, private readonly tableName: string) {}

  async claim(record: DomainRecord): Promise<DomainRecord | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = await this.get(record.domain);
      if (existing && existing.state !== 'removed') return existing;
      // The removed claim's verification history stays with the name (ownershipRequirement reads it).
      const verifiedBy = [...new Set([...(existing?.verifiedBy ?? []), ...(record.verifiedBy ?? [])])];
      const item: DomainRecord = verifiedBy.length > 0 ? { ...record, verifiedBy } : record;
      const claimed = await conditionally(() =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: item,
            // One project per domain platform-wide; a removed domain can be added again, and the
            // history read above is still the stored one (same removed claim).
            ...(existing
              ? {
                  ConditionExpression: '#state = :removed AND #createdAt = :createdAt',
                  ExpressionAttributeNames: { '#state': 'state', '#createdAt': 'createdAt' },
                  ExpressionAttributeValues: { ':removed': 'removed', ':createdAt': existing.createdAt },
                }
              : { ConditionExpression: 'attribute_not_exists(#domain)', ExpressionAttributeNames: { '#domain': 'domain' } }),
          }),
        ),
      );
      if (claimed) return undefined;
    }
    throw new Error(`domain ${record.domain} is contended`);
  }

  get(domain: string): Promise<DomainRecord | undefined> {
    return getItem(this.client, this.tableName, { domain });
  }

  async listByProject(projectId: string): Promise<DomainRecord[]> {
    const { projectIndex } = DOMAIN_TABLE_KEYS.domains;
    const items = await queryIndex<DomainRecord>(this.client, this.tableName, projectIndex, projectId);
    // GSIs are eventually consistent: read each record again for the current state.
    const fresh = await Promise.all(items.map((d) => this.get(d.domain)));
    return fresh.filter((d): d is DomainRecord => d !== undefined && d.projectId === projectId && d.state !== 'removed');
  }

  update(domain: string, changes: Partial<Omit<DomainRecord, 'domain'>>, expected?: number | DomainExpectation): Promise<boolean> {
    const expectation = typeof expected === 'number' ? { attempt: expected } : expected;
    const update = { TableName: this.tableName, Key: { domain }, ...conditionalUpdate('domain', changes, expectation) };
    return conditionally(() => this.client.send(new UpdateCommand(update)));
  }

  /** A Scan filtered to live records (see isLive); the cursor is the page's LastEvaluatedKey, base64url JSON. */
  async liveDomains(cursor: string | undefined, pageSize: number): Promise<LiveDomainsPage> {
    const page = await this.client.send(
      new ScanCommand({
        TableName: this.tableName,
        Limit: pageSize,
        FilterExpression: '#state = :active OR (attribute_exists(#activeAt) AND #state <> :removed)',
        ExpressionAttributeNames: { '#state': 'state', '#activeAt': 'activeAt' },
        ExpressionAttributeValues: { ':active': 'active', ':removed': 'removed' },
        ...(cursor ? { ExclusiveStartKey: JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown> } : {}),
      }),
    );
    const next = page.LastEvaluatedKey ? Buffer.from(JSON.stringify(page.LastEvaluatedKey)).toString('base64url') : undefined;
    return { records: (page.Items ?? []) as DomainRecord[], ...(next ? { cursor: next } : {}) };
  }

  async pendingReleases(limit: number): Promise<DomainRecord[]> {
    const found: DomainRecord[] = [];
    const scan = { TableName: this.tableName, FilterExpression: 'attribute_exists(pendingRelease)' };
    for await (const page of paginateScan({ client: this.client }, scan)) {
      found.push(...((page.Items ?? []) as DomainRecord[]));
      if (found.length >= limit) break;
    }
    return found.slice(0, limit);
  }
}
