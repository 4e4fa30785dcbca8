import { describe, expect, it } from 'vitest';
import type { AccountRecord } from '../../../lambda/keys/accounts.js';
import { HttpProblem } from '../../../lambda/shared/problem.js';
import type { ApiKeyRecord } from '../../../lambda/keys/key-store.js';
import { ManualClock } from '../../support/clock.js';
import type { RefusalCounts, UsageHistoryReader } from '../../../lambda/usage-history/ports.js';
import { parseHistoryDays, UsageHistory } from '../../../lambda/usage-history/usage-history.js';

const NOW = Date.UTC(2026, 10, 21, 10, 15);
const account: AccountRecord = { accountId: 'acct_1', name: 'Acme', plan: 'pro', createdAt: '2026-11-01T00:00:00.000Z' };
const keyRecord = (keyId: string, createdAt: string, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  keyHash: `hash_${keyId}`,
  keyId,
  accountId: 'acct_1',
  name: `name ${keyId}`,
  prefix: 'sk_live_',
  last4: keyId.slice(-4),
  status: 'active',
  plan: 'pro',
  createdAt,
  ...extra,
});

/** The reader port over fixed data (what the DynamoDB store reads is tested against dynalite). */
class FixedReader implements UsageHistoryReader {
  constructor(
    private readonly accepted: Record<string, Record<string, number>>,
    private readonly refusals: Record<string, Record<string, RefusalCounts>>,
  ) {}

  async acceptedOn(_accountId: string, dates: readonly string[]) {
    const present = dates.filter((d) => this.accepted[d]);
    return new Map(present.map((d) => [d, new Map(Object.entries(this.accepted[d] ?? {}))]));
  }

  async refusalsOf(keyIds: readonly string[]) {
    return new Map(keyIds.map((k) => [k, new Map(Object.entries(this.refusals[k] ?? {}))]));
  }
}

function history(records: ApiKeyRecord[], reader: UsageHistoryReader, accounts: AccountRecord[] = [account]) {
  return new UsageHistory({
    accounts: { get: async (id) => accounts.find((a) => a.accountId === id) },
    keys: { listByAccount: async (id) => records.filter((r) => r.accountId === id) },
    history: reader,
    clock: new ManualClock(NOW),
  });
}

describe('UsageHistory', () => {
  it('answers N zero-filled days oldest first, per key (revoked included, oldest key first) and in all', async () => {
    const records = [
      keyRecord('key_bbbb', '2026-11-10T00:00:00.000Z', { status: 'revoked', revokedAt: '2026-11-20T12:00:00.000Z' }),
      keyRecord('key_aaaa', '2026-11-02T00:00:00.000Z'),
    ];
    const reader = new FixedReader(
      { '2026-11-20': { key_aaaa: 5, key_bbbb: 2 }, '2026-11-21': { key_aaaa: 1 } },
      { key_aaaa: { '2026-11-21': { rateLimited: 3, banned: 7 } }, key_bbbb: { '2026-11-01': { rateLimited: 9, banned: 0 } } },
    );
    const view = await history(records, reader).history('acct_1', 3);
    const zero = { accepted: 0, rateLimited: 0, banned: 0 };
    expect(view).toEqual({
      accountId: 'acct_1',
      from: '2026-11-19',
      to: '2026-11-21',
      refusalsApproximate: true,
      totals: { accepted: 8, rateLimited: 3, banned: 7 },
      days: [
        { date: '2026-11-19', ...zero },
        { date: '2026-11-20', accepted: 7, rateLimited: 0, banned: 0 },
        { date: '2026-11-21', accepted: 1, rateLimited: 3, banned: 7 },
      ],
      keys: [
        {
          keyId: 'key_aaaa', name: 'name key_aaaa', prefix: 'sk_live_', last4: 'aaaa', status: 'active',
          totals: { accepted: 6, rateLimited: 3, banned: 7 },
          days: [
            { date: '2026-11-19', ...zero },
            { date: '2026-11-20', accepted: 5, rateLimited: 0, banned: 0 },
            { date: '2026-11-21', accepted: 1, rateLimited: 3, banned: 7 },
          ],
        },
        {
          keyId: 'key_bbbb', name: 'name key_bbbb', prefix: 'sk_live_', last4: 'bbbb', status: 'revoked',
          revokedAt: '2026-11-20T12:00:00.000Z',
          totals: { accepted: 2, rateLimited: 0, banned: 0 },
          days: [
            { date: '2026-11-19', ...zero },
            { date: '2026-11-20', accepted: 2, rateLimited: 0, banned: 0 },
            { date: '2026-11-21', ...zero },
          ],
        },
      ],
    });
  });

  it('shows 30 days by default, ending today (UTC)', async () => {
    const view = await history([], new FixedReader({}, {})).history('acct_1', parseHistoryDays(undefined));
    expect([view.from, view.to, view.days.length, view.keys]).toEqual(['2026-10-23', '2026-11-21', 30, []]);
  });

  it('refuses an unknown account as account_not_found (404)', async () => {
    await expect(history([], new FixedReader({}, {})).history('acct_none', 30)).rejects.toMatchObject({
      code: 'account_not_found',
      status: 404,
    });
  });
});

describe('parseHistoryDays', () => {
  it.each(['1', '7', '30'])('takes %s', (raw) => expect(parseHistoryDays(raw)).toBe(Number(raw)));
  it.each(['0', '31', '-1', '1.5', 'abc', '', '007x', '1e1'])('refuses "%s" with invalid_request (400)', (raw) => {
    expect(() => parseHistoryDays(raw)).toThrow(HttpProblem);
    expect(() => parseHistoryDays(raw)).toThrow('days must be a whole number from 1 to 30.');
  });
});
