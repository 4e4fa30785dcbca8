/**
 * The attributes of a limiter item and how they are read, shared by the DynamoDB and in-memory stores: the
 * counters, slices and key markers of docs/contributors/limiter.md, a key's last use `<keyId>/u`, on key items
 * `strikeWindowStart`, `strikeCount` and 429s per UTC day (`rateLimited:<YYYY-MM-DD>`, `banned:<YYYY-MM-DD>`),
 * on anonymous items `expiresAt` (TTL).
 */

export interface WindowCount {
  readonly window: number;
  readonly count: number;
}

export interface KeyEntry {
  readonly minute?: WindowCount;
  readonly day?: WindowCount;
  readonly lastUsedAt?: number;
  readonly banUntil?: number;
  readonly revokedUntil?: number;
}

export interface LimiterItem {
  readonly id: string;
  readonly minute?: WindowCount;
  readonly day?: WindowCount;
  readonly minuteLimit?: number;
  readonly dayLimit?: number;
  readonly perMinute?: number;
  readonly perDay?: number;
  readonly shards?: number;
  readonly keys: Readonly<Record<string, KeyEntry>>;
  readonly strikeWindowStart?: number;
  readonly strikeCount?: number;
  /** e.g. `{"rateLimited:2026-11-21": 3}` */
  readonly refusals?: Readonly<Record<string, number>>;
}

export type KeyMarker = 'ban' | 'revoked';

/** A counter's count in `window`: 0 when it holds another window's. */
export const countIn = (counter: WindowCount | undefined, window: number) =>
  counter?.window === window ? counter.count : 0;

export const minuteCounter = (minute: number) => `m${minute}`;
export const dayCounter = (day: number) => `d${day}`;
export const keyMinuteCounter = (keyId: string, minute: number) => `${keyId}/m${minute}`;
export const keyDayCounter = (keyId: string, day: number) => `${keyId}/d${day}`;
export const keyLastUsed = (keyId: string) => `${keyId}/u`;
export const keyMarkerName = (keyId: string, marker: KeyMarker) => `${keyId}/${marker === 'ban' ? 'b' : 'x'}`;

type RefusalReason = 'rateLimited' | 'banned';
/** The UTC day of an instant, `YYYY-MM-DD`. */
export const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const refusalCounter = (reason: RefusalReason, date: string) => `${reason}:${date}`;
/** Refusal counters are kept this many days (the usage history shows 30). */
const REFUSAL_RETENTION_DAYS = 35;
const REFUSAL_COUNTER = /^(rateLimited|banned):(\d{4}-\d{2}-\d{2})$/;

/** A key item's refusal counts per UTC day. */
export function refusalCountsOf(
  attrs: Readonly<Record<string, unknown>>,
): Map<string, { rateLimited: number; banned: number }> {
  const days = new Map<string, { rateLimited: number; banned: number }>();
  for (const name in attrs) {
    const match = REFUSAL_COUNTER.exec(name);
    if (!match) continue;
    const date = match[2] as string;
    const day = days.get(date) ?? { rateLimited: 0, banned: 0 };
    day[match[1] as RefusalReason] += Number(attrs[name]);
    days.set(date, day);
  }
  return days;
}

/** Refusal counters of days before the retention, as of `nowMs`. */
export function expiredRefusalCounters(names: readonly string[], nowMs: number): string[] {
  const oldest = utcDate(nowMs - REFUSAL_RETENTION_DAYS * 86_400_000);
  return names.filter((name) => (REFUSAL_COUNTER.exec(name)?.[2] ?? oldest) < oldest);
}

const COUNTER = /^([md])(\d+)$/;
/** The key id is everything before the last slash. */
const KEY_ATTRIBUTE = /^(.+)\/(?:([md])(\d+)|([ubx]))$/;
const NUMBERS = ['minuteLimit', 'dayLimit', 'perMinute', 'perDay', 'shards', 'strikeWindowStart', 'strikeCount'] as const;

type MutableEntry = { -readonly [K in keyof KeyEntry]: KeyEntry[K] };

const later = (current: WindowCount | undefined, window: number, count: number): WindowCount | undefined =>
  current === undefined || window >= current.window ? { window, count } : current;

/** The item as the limiter reads it, from its raw attributes. */
export function parseItem(attrs: Readonly<Record<string, unknown>>): LimiterItem {
  const item: Record<string, unknown> = { id: String(attrs.id) };
  const keys: Record<string, MutableEntry> = {};
  let minute: WindowCount | undefined;
  let day: WindowCount | undefined;
  let refusals: Record<string, number> | undefined;
  for (const name in attrs) {
    const value = attrs[name];
    const counter = COUNTER.exec(name);
    if (counter) {
      if (counter[1] === 'm') minute = later(minute, Number(counter[2]), Number(value));
      else day = later(day, Number(counter[2]), Number(value));
      continue;
    }
    const keyAttribute = KEY_ATTRIBUTE.exec(name);
    if (keyAttribute) {
      const entry = (keys[keyAttribute[1] as string] ??= {});
      if (keyAttribute[2] === 'm') entry.minute = later(entry.minute, Number(keyAttribute[3]), Number(value));
      else if (keyAttribute[2] === 'd') entry.day = later(entry.day, Number(keyAttribute[3]), Number(value));
      else if (keyAttribute[4] === 'u') entry.lastUsedAt = Number(value);
      else if (keyAttribute[4] === 'b') entry.banUntil = Number(value);
      else entry.revokedUntil = Number(value);
      continue;
    }
    if (REFUSAL_COUNTER.test(name)) (refusals ??= {})[name] = Number(value);
  }
  for (const name of NUMBERS) if (attrs[name] !== undefined) item[name] = Number(attrs[name]);
  if (minute) item.minute = minute;
  if (day) item.day = day;
  if (refusals) item.refusals = refusals;
  item.keys = keys;
  return item as unknown as LimiterItem;
}

/**
 * Attributes to tidy after a counting write: counters older than the previous window (which the
 * write removes itself, and a late clock may still count in), expired markers, and a revoked key's
 * last use with its marker (its key record kept it).
 */
export function staleAttributes(
  attrs: Readonly<Record<string, unknown>>,
  windows: { readonly minute: number; readonly day: number },
  nowMs: number,
): string[] {
  const stale: string[] = [];
  const isStale = (kind: string, window: number) => window < (kind === 'm' ? windows.minute : windows.day) - 1;
  for (const name in attrs) {
    const counter = COUNTER.exec(name);
    if (counter) {
      if (isStale(counter[1] as string, Number(counter[2]))) stale.push(name);
      continue;
    }
    const keyAttribute = KEY_ATTRIBUTE.exec(name);
    if (!keyAttribute) continue;
    if (keyAttribute[2] !== undefined) {
      if (isStale(keyAttribute[2], Number(keyAttribute[3]))) stale.push(name);
    } else if (keyAttribute[4] !== 'u' && Number(attrs[name]) <= nowMs) {
      stale.push(name);
      if (keyAttribute[4] === 'x' && attrs[keyLastUsed(keyAttribute[1] as string)] !== undefined) {
        stale.push(keyLastUsed(keyAttribute[1] as string));
      }
    }
  }
  return stale;
}

/** The windows to count in when the item already holds newer ones (another container's clock ran ahead). */
export function adoptNewerWindows(
  windows: { readonly minute: number; readonly day: number },
  item: LimiterItem | undefined,
): { minute: number; day: number } | undefined {
  const minute = Math.max(windows.minute, item?.minute?.window ?? 0);
  const day = Math.max(windows.day, item?.day?.window ?? 0);
  return minute !== windows.minute || day !== windows.day ? { minute, day } : undefined;
}
