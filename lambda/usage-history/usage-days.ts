import { utcDate } from '../rate-limits/index.js';

const DAY_MS = 86_400_000;

/** The history shows at most this many days (today included). */
export const MAX_HISTORY_DAYS = 30;

/** History items live this many days past their own (DynamoDB TTL), beyond the longest history shown. */
const HISTORY_RETENTION_DAYS = 35;

/** The last `days` UTC dates up to the one of `nowMs`, oldest first. */
export function lastDates(nowMs: number, days: number): string[] {
  return Array.from({ length: days }, (_, i) => utcDate(nowMs - (days - 1 - i) * DAY_MS));
}

/** Epoch seconds after which a history item of `date` may be deleted (TTL). */
export function historyExpiry(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / 1000) + (HISTORY_RETENTION_DAYS + 1) * 86_400;
}
