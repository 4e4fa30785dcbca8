import type { AccountView, KeyView, PendingUpgradeRequest, UsageHistoryView, UsageView } from './operator-client.js';

/** Control characters (a name could hold some) are shown as `?`, never sent to the terminal. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;
export const clean = (value: string): string => value.replace(CONTROL_CHARACTERS, '?');

const show = (value: string | number | undefined): string => (value === undefined || value === '' ? '-' : clean(String(value)));

/** `label  value` lines with the values aligned. */
export function keyValues(rows: ReadonlyArray<readonly [string, string | number | undefined]>): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${show(value)}`.trimEnd()).join('\n') + '\n';
}

type Cell = string | number | undefined;

/** A table with a header row and columns aligned (two spaces apart). */
export function table(headers: readonly string[], rows: ReadonlyArray<ReadonlyArray<Cell>>): string {
  const cells = [headers.map(String), ...rows.map((row) => headers.map((_, i) => show(row[i])))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] as string).length)));
  return cells.map((row) => row.map((cell, i) => cell.padEnd(widths[i] as number)).join('  ').trimEnd()).join('\n') + '\n';
}

/** What may be shown of a key: its display prefix and last four characters. */
export const maskedKey = (key: Pick<KeyView, 'prefix' | 'last4'>): string => `${key.prefix}…${key.last4}`;

export const limitsText = (limits: { perMinute: number; perDay: number }): string => `${limits.perMinute}/min, ${limits.perDay}/day`;

export function accountText(account: AccountView): string {
  return keyValues([
    ['account', account.accountId],
    ['name', account.name],
    ['plan', account.plan],
    ['limits', `${limitsText(account.limits)}${account.customLimits ? ' (custom)' : ' (plan)'}`],
    ['created', account.createdAt],
    ...(account.updatedAt ? [['updated', account.updatedAt] as const] : []),
    ...(account.upgradeRequest
      ? [['upgrade requested', `${account.upgradeRequest.plan} (${account.upgradeRequest.requestedAt})`] as const]
      : []),
  ]);
}

export function keyText(key: KeyView): string {
  return keyValues([
    ['key id', key.keyId],
    ['name', key.name],
    ['key', maskedKey(key)],
    ['status', key.status],
    ['created', key.createdAt],
    ['last used', key.lastUsedAt],
    ...(key.revokedAt ? [['revoked', key.revokedAt] as const] : []),
  ]);
}

export function keysTable(keys: readonly KeyView[]): string {
  if (keys.length === 0) return 'No keys.\n';
  return table(
    ['ID', 'NAME', 'KEY', 'STATUS', 'CREATED', 'LAST USED'],
    keys.map((k) => [k.keyId, k.name, maskedKey(k), k.status, k.createdAt, k.lastUsedAt]),
  );
}

export function usageText(usage: UsageView): string {
  const head = keyValues([
    ['account', usage.accountId],
    ['plan', `${usage.plan} (${limitsText(usage.limits)}, shared by every key of the account)`],
    ['this minute', `${usage.minute.used}/${usage.minute.limit} (${usage.minute.remaining} left, resets ${usage.minute.resetsAt})`],
    ['today (UTC)', `${usage.day.used}/${usage.day.limit} (${usage.day.remaining} left, resets ${usage.day.resetsAt})`],
  ]);
  if (usage.keys.length === 0) return `${head}\nNo keys.\n`;
  const rows = usage.keys.map((k) => [k.keyId, k.name, maskedKey(k), k.status, k.used.minute, k.used.day, k.lastUsedAt,
    k.bannedUntil]);
  return `${head}\n${table(['ID', 'NAME', 'KEY', 'STATUS', 'MINUTE', 'DAY', 'LAST USED', 'BANNED UNTIL'], rows)}`;
}

/** Pending upgrade requests, oldest first, each with the command that approves it. */
export function upgradeRequestsText(requests: readonly PendingUpgradeRequest[]): string {
  if (requests.length === 0) return 'No pending upgrade requests.';
  const rows = requests.map((r) => [r.accountId, r.accountName, r.currentPlan, r.plan, r.requestedAt, r.requestedBy ?? '']);
  const approve = requests.map((r) => `  npm run platform -- plans set --account ${r.accountId} --plan ${r.plan}`);
  return `${table(['account', 'name', 'plan', 'requested', 'requested at', 'by'], rows)}Approve one with:\n${approve.join('\n')}`;
}

const row = (label: string, counts: { accepted: number; rateLimited: number; banned: number }) =>
  [label, counts.accepted, counts.rateLimited, counts.banned] as const;

/** `usage history`: the account's days with a total line, then each key's totals. */
export function usageHistoryText(history: UsageHistoryView): string {
  const days = table(['day (UTC)', 'accepted', 'rate limited', 'banned'], [...history.days.map((d) => row(d.date, d)), row('total', history.totals)]);
  const keys = history.keys.length === 0
    ? 'No keys.\n'
    : table(
        ['key', 'name', 'status', 'accepted', 'rate limited', 'banned'],
        history.keys.map((k) => {
          const status = k.revokedAt ? `revoked ${k.revokedAt}` : k.status;
          return [maskedKey(k), clean(k.name), status, k.totals.accepted, k.totals.rateLimited, k.totals.banned];
        }),
      );
  return `Account ${history.accountId}, ${history.from} to ${history.to} (UTC days)\n${days}\nPer key, ${history.days.length} days:\n${keys}` +
    'Refused counts (rate limited, banned) are approximate: lower bounds. Accepted messages are counted by the worker.\n';
}
