import {
  dayCounter,
  keyDayCounter,
  keyLastUsed,
  keyMarkerName,
  keyMinuteCounter,
  type KeyMarker,
  type LimiterItem,
  minuteCounter,
  parseItem,
  staleAttributes,
} from '../../lambda/rate-limits/limiter-item.js';
import type {
  ConsumeCondition,
  Counted,
  LimiterStore,
  Mutable,
  RefundWindows,
  Refused,
  ShardProvision,
  StrikeTally,
} from '../../lambda/rate-limits/limiter-store.js';

type Attributes = Record<string, number | string>;

/**
 * In-memory limiter store holding the very attributes the DynamoDB store writes, with the same
 * conditional semantics (the differential test compares them item by item), for unit tests of the
 * limiter and in-process benchmarks. Every method is atomic (single-threaded JS); like DynamoDB
 * with ReturnValuesOnConditionCheckFailure, a refused write answers the item that refused it.
 */
export class MemoryLimiterStore implements LimiterStore {
  private readonly items = new Map<string, Attributes>();

  async tryConsume(id: string, c: ConsumeCondition): Promise<Counted | Refused> {
    const item = this.items.get(id);
    const m = minuteCounter(c.minuteWindow);
    const d = dayCounter(c.dayWindow);
    if (!this.admits(item, c, m, d)) return { counted: false, item: item ? parseItem(item) : null };

    const units = c.batch?.units ?? 1;
    const next: Attributes = item ?? { id };
    add(next, m, units);
    add(next, d, units);
    delete next[minuteCounter(c.minuteWindow - 1)];
    delete next[dayCounter(c.dayWindow - 1)];
    if (c.keyId !== undefined) {
      add(next, keyMinuteCounter(c.keyId, c.minuteWindow), units);
      add(next, keyDayCounter(c.keyId, c.dayWindow), units);
      delete next[keyMinuteCounter(c.keyId, c.minuteWindow - 1)];
      delete next[keyDayCounter(c.keyId, c.dayWindow - 1)];
      next[keyLastUsed(c.keyId)] = c.nowMs;
    }
    if (c.expiresAtSeconds !== undefined) next.expiresAt = c.expiresAtSeconds;
    this.items.set(id, next);
    const counted: Mutable<Counted> = { counted: true, item: parseItem(next) };
    const stale = staleAttributes(next, { minute: c.minuteWindow, day: c.dayWindow }, c.nowMs);
    if (stale.length > 0) counted.tidy = async () => this.remove(id, stale);
    return counted;
  }

  async get(id: string): Promise<LimiterItem | undefined> {
    const item = this.items.get(id);
    return item ? parseItem(item) : undefined;
  }

  async provision(id: string, p: ShardProvision): Promise<void> {
    const item = this.items.get(id) ?? { id };
    Object.assign(item, {
      minuteLimit: p.slice.perMinute,
      dayLimit: p.slice.perDay,
      perMinute: p.account.perMinute,
      perDay: p.account.perDay,
      shards: p.shards,
    });
    this.items.set(id, item);
  }

  async provisionIfMissing(id: string, p: ShardProvision): Promise<void> {
    if (this.items.get(id)?.minuteLimit === undefined) await this.provision(id, p);
  }

  async setKeyMarker(
    id: string,
    keyId: string,
    marker: KeyMarker,
    untilMs: number,
    nowMs: number,
    options: { readonly create?: boolean } = {},
  ): Promise<boolean> {
    const item = this.items.get(id) ?? (options.create ? { id } : undefined);
    const name = keyMarkerName(keyId, marker);
    if (!item) return false;
    if (marker === 'ban' && item[name] !== undefined && Number(item[name]) > nowMs) return false;
    item[name] = untilMs;
    this.items.set(id, item);
    return true;
  }

  async clearKeyMarker(id: string, keyId: string, marker: KeyMarker): Promise<void> {
    this.remove(id, [keyMarkerName(keyId, marker)]);
  }

  async addStrike(id: string, windowStart: number, tally?: StrikeTally): Promise<number | undefined> {
    const item = this.items.get(id);
    if (!item || item.strikeWindowStart !== windowStart) return undefined;
    item.strikeCount = Number(item.strikeCount ?? 0) + 1;
    applyTally(item, tally);
    return item.strikeCount;
  }

  async restartStrikes(
    id: string,
    expectedStart: number | undefined,
    nowMs: number,
    tally?: StrikeTally,
  ): Promise<boolean> {
    const item = this.items.get(id);
    if (item?.strikeWindowStart !== expectedStart) return false;
    const next = item ?? { id };
    next.strikeWindowStart = nowMs;
    next.strikeCount = 1;
    applyTally(next, tally);
    this.items.set(id, next);
    return true;
  }

  async resetStrikes(id: string): Promise<void> {
    const item = this.items.get(id) ?? { id };
    delete item.strikeWindowStart;
    item.strikeCount = 0;
    this.items.set(id, item);
  }

  async refund(id: string, w: RefundWindows): Promise<void> {
    const minute = [minuteCounter(w.minuteWindow), ...(w.keyId ? [keyMinuteCounter(w.keyId, w.minuteWindow)] : [])];
    const day = [dayCounter(w.dayWindow), ...(w.keyId ? [keyDayCounter(w.keyId, w.dayWindow)] : [])];
    const units = w.units ?? 1;
    if (!this.decrement(id, [...minute, ...day], units)) this.decrement(id, day, units);
  }

  async adjustCounters(id: string, deltas: Readonly<Record<string, number>>): Promise<void> {
    // As DynamoDB's store: nothing to add is no write at all (no item created).
    if (Object.values(deltas).every((amount) => amount === 0)) return;
    const item = this.items.get(id) ?? { id };
    for (const [name, amount] of Object.entries(deltas)) if (amount !== 0) add(item, name, amount);
    this.items.set(id, item);
  }

  /** The item's attributes as stored, a copy (the differential test compares them with DynamoDB's). */
  raw(id: string): Record<string, number | string> | undefined {
    const item = this.items.get(id);
    return item ? { ...item } : undefined;
  }

  /** Writes an item as is: fixtures for tests (e.g. items written by an earlier version). */
  seed(item: Record<string, number | string> & { id: string }): void {
    this.items.set(item.id, { ...item });
  }

  /** The condition of consumeExpression (limiter-expressions.ts), evaluated here. */
  private admits(item: Attributes | undefined, c: ConsumeCondition, m: string, d: string): boolean {
    const num = (name: string) => (item?.[name] === undefined ? undefined : Number(item[name]));
    const later = num(minuteCounter(c.minuteWindow + 1)) ?? num(dayCounter(c.dayWindow + 1));
    if (later !== undefined) return false;
    const below = (counter: string, limit: number | undefined, counterMayBeAbsent: boolean) => {
      const count = num(counter);
      if (limit === undefined) return false;
      return count === undefined ? counterMayBeAbsent : count < limit;
    };
    if (c.batch !== undefined) {
      // limiter-expressions.ts: the stored slice is the pinned one, and count + units fits in it.
      const { units, slice } = c.batch;
      if (num('minuteLimit') !== slice.perMinute || num('dayLimit') !== slice.perDay) return false;
      if ((num(m) ?? 0) + units > slice.perMinute || (num(d) ?? 0) + units > slice.perDay) return false;
    } else if (c.limits === 'stored') {
      const minuteLimit = num('minuteLimit');
      const dayLimit = num('dayLimit');
      if (!below(m, minuteLimit, (minuteLimit ?? 0) > 0) || !below(d, dayLimit, (dayLimit ?? 0) > 0)) return false;
    } else if (!below(m, c.limits.perMinute, true) || !below(d, c.limits.perDay, true)) {
      return false;
    }
    if (c.keyId !== undefined) {
      for (const marker of ['ban', 'revoked'] as const) {
        const until = num(keyMarkerName(c.keyId, marker));
        if (until !== undefined && until > c.nowMs) return false;
      }
    }
    return true;
  }

  private decrement(id: string, counters: readonly string[], units: number): boolean {
    const item = this.items.get(id);
    if (!item || !counters.every((name) => item[name] !== undefined && Number(item[name]) >= units)) return false;
    for (const name of counters) item[name] = Number(item[name]) - units;
    return true;
  }

  private remove(id: string, attributes: readonly string[]): void {
    const item = this.items.get(id);
    if (!item) return;
    for (const name of attributes) delete item[name];
  }
}

function add(item: Attributes, name: string, amount: number): void {
  item[name] = Number(item[name] ?? 0) + amount;
}

/** As DynamoDB's store: the strike write's refusal counter, and its expired ones removed. */
function applyTally(item: Attributes, tally: StrikeTally | undefined): void {
  if (!tally) return;
  add(item, tally.counter, 1);
  for (const name of tally.expired ?? []) delete item[name];
}
