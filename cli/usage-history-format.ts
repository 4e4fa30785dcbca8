import type { UsageHistoryView } from './operator-client.js';
import { clean, maskedKey, table } from './format.js';

const row = (label: string, counts: { accepted: number; rateLimited: number; banned: number }) =>
  [label, counts.accepted, counts.rateLimited, counts.banned] as const;

const HEADERS = ['day (UTC)', 'accepted', 'rate limited', 'banned'];

/** `usage history`: the account's days with a total line, then each key's totals. */
export function usageHistoryText(history: UsageHistoryView): string {
  const days = table(HEADERS, [...history.days.map((d) => row(d.date, d)), row('total', history.totals)]);
  const keys = history.keys.length === 0
    ? 'No keys.\n'
    : table(
        ['key', 'name', 'status', 'accepted', 'rate limited', 'banned'],
        history.keys.map((k) => [
          maskedKey(k),
          clean(k.name),
          k.revokedAt ? `revoked ${k.revokedAt}` : k.status,
          k.totals.accepted,
          k.totals.rateLimited,
          k.totals.banned,
        ]),
      );
  return `Account ${history.accountId}, ${history.from} to ${history.to} (UTC days)\n${days}\nPer key, ${history.days.length} days:\n${keys}` +
    'Refused counts (rate limited, banned) are approximate: lower bounds. Accepted messages are counted by the worker.\n';
}
