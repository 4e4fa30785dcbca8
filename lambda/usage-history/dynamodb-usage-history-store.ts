import { type DynamoDBDocumentClient as DocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keyItemId, refusalCountsOf } from '../rate-limits/index.js';
import { addClause } from '../shared/dynamodb-update.js';
import type { AcceptedUsageRecorder, RefusalCounts, UsageHistoryReader } from './ports.js';
import { historyExpiry } from './usage-days.js';

/**
 * The usage history in the limiter's table: one item per account and UTC day,
 * `usage#<accountId>#<YYYY-MM-DD>`, with `accepted:<keyId>` counters and a TTL; the refusals are
 * counters on each key's limiter item (limiter-item.ts).
 */
export class DynamoDbUsageHistoryStore implements AcceptedUsageRecorder, UsageHistoryReader {
  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {}

  async addAccepted(accountId: string, date: string, perKey: ReadonlyMap<string, number>): Promise<void> {
    const entries = [...perKey].filter(([, count]) => count > 0);
    if (entries.length === 0) return;
    const { clause, names, values } = addClause(entries.map(([keyId, count]) => [`${ACCEPTED_PREFIX}${keyId}`, count]));
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { id: historyItemId(accountId, date) },
        UpdateExpression: `${clause} SET #expiresAt = :expiresAt`,
        ExpressionAttributeNames: { ...names, '#expiresAt': 'expiresAt' },
        ExpressionAttributeValues: { ...values, ':expiresAt': historyExpiry(date) },
      }),
    );
  }

  async acceptedOn(accountId: string, dates: readonly string[]): Promise<Map<string, Map<string, number>>> {
    const items = await Promise.all(
      dates.map(async (date) => ({ date, item: await this.read(historyItemId(accountId, date)) })),
    );
    const days = new Map<string, Map<string, number>>();
    for (const { date, item } of items) {
      if (!item) continue;
      const perKey = new Map<string, number>();
      for (const name in item) {
        if (name.startsWith(ACCEPTED_PREFIX)) perKey.set(name.slice(ACCEPTED_PREFIX.length), Number(item[name]));
      }
      days.set(date, perKey);
    }
    return days;
  }

  async refusalsOf(keyIds: readonly string[]): Promise<Map<string, Map<string, RefusalCounts>>> {
    const items = await Promise.all(keyIds.map(async (keyId) => ({ keyId, item: await this.read(keyItemId(keyId)) })));
    return new Map(items.map(({ keyId, item }) => [keyId, item ? refusalCountsOf(item) : new Map()]));
  }

  private async read(id: string): Promise<Record<string, unknown> | undefined> {
    const result = await this.client.send(new GetCommand({ TableName: this.tableName, Key: { id } }));
    return result.Item;
  }
}

const ACCEPTED_PREFIX = 'accepted:';

/** The history item of an account's UTC day (the limiter's own items are `acct#…`, `key#…`, `ip#…`). */
export const historyItemId = (accountId: string, date: string) => `usage#${accountId}#${date}`;
