import type { components } from '../../contracts/openapi/control-api.js';
import { type AccountStore, type KeyStore, oldestKeyFirst } from '../keys/index.js';
import { refuse } from '../shared/problem.js';
import type { Clock } from '../shared/clock.js';
import type { RefusalCounts, UsageHistoryReader } from './ports.js';
import { lastDates, MAX_HISTORY_DAYS } from './usage-days.js';

type Schemas = components['schemas'];
export type DayUsage = Schemas['DayUsage'];
export type UsageTotals = Schemas['UsageTotals'];
export type KeyUsageHistory = Schemas['KeyUsageHistory'];
/** GET /accounts/{accountId}/usage/history; refused counts are lower bounds (docs/owners.md, "Usage history"). */
export type UsageHistoryView = Schemas['UsageHistory'];

export interface UsageHistoryDeps {
  readonly accounts: Pick<AccountStore, 'get'>;
  readonly keys: Pick<KeyStore, 'listByAccount'>;
  readonly history: UsageHistoryReader;
  readonly clock: Clock;
}

/** `days` of the query: absent is the whole history; otherwise a whole number from 1 to 30. */
export function parseHistoryDays(raw: string | undefined): number {
  if (raw === undefined) return MAX_HISTORY_DAYS;
  if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_HISTORY_DAYS) {
    throw refuse('invalid_request', `days must be a whole number from 1 to ${MAX_HISTORY_DAYS}.`, 400, [
      { field: 'days', message: `must be a whole number from 1 to ${MAX_HISTORY_DAYS}` },
    ]);
  }
  return Number(raw);
}

const ZERO: UsageTotals = { accepted: 0, rateLimited: 0, banned: 0 };

const sum = (days: readonly DayUsage[]): UsageTotals =>
  days.reduce(
    (total, day) => ({
      accepted: total.accepted + day.accepted,
      rateLimited: total.rateLimited + day.rateLimited,
      banned: total.banned + day.banned,
    }),
    ZERO,
  );

/**
 * An account's usage per UTC day: accepted messages (counted by the worker) and refused requests
 * by reason (counted on the limiter's refusal path), per key and in all, zero-filled.
 */
export class UsageHistory {
  constructor(private readonly deps: UsageHistoryDeps) {}

  async history(accountId: string, days: number): Promise<UsageHistoryView> {
    const dates = lastDates(this.deps.clock.now(), days);
    const [account, records] = await Promise.all([
      this.deps.accounts.get(accountId),
      this.deps.keys.listByAccount(accountId),
    ]);
    if (!account) throw refuse('account_not_found', `No account ${accountId}.`, 404);
    const [accepted, refusals] = await Promise.all([
      this.deps.history.acceptedOn(accountId, dates),
      this.deps.history.refusalsOf(records.map((r) => r.keyId)),
    ]);
    const keyDays = (keyId: string): DayUsage[] =>
      dates.map((date) => {
        const refused: RefusalCounts = refusals.get(keyId)?.get(date) ?? ZERO;
        const acceptedOnDay = accepted.get(date)?.get(keyId) ?? 0;
        return { date, accepted: acceptedOnDay, rateLimited: refused.rateLimited, banned: refused.banned };
      });
    const keys = [...records]
      .sort(oldestKeyFirst)
      .map((record): KeyUsageHistory => {
        const perDay = keyDays(record.keyId);
        return {
          keyId: record.keyId,
          name: record.name,
          prefix: record.prefix,
          last4: record.last4,
          status: record.status,
          ...(record.revokedAt ? { revokedAt: record.revokedAt } : {}),
          totals: sum(perDay),
          days: perDay,
        };
      });
    // The account's days add up its keys' (accepted counts of every key on the day's item).
    const accountDays = dates.map((date, i): DayUsage => {
      const refused = sum(keys.map((key) => key.days[i] as DayUsage));
      const acceptedOnDay = [...(accepted.get(date)?.values() ?? [])].reduce((a, b) => a + b, 0);
      return { date, accepted: acceptedOnDay, rateLimited: refused.rateLimited, banned: refused.banned };
    });
    return {
      accountId,
      from: dates[0] as string,
      to: dates[dates.length - 1] as string,
      refusalsApproximate: true,
      totals: sum(accountDays),
      days: accountDays,
      keys,
    };
  }
}
