import type { ConsumeCondition, Consumed, LimiterItem, LimiterStore, Mutable } from './limiter-store.js';

/**
 * In-memory limiter store with the same conditional semantics as the DynamoDB store, for unit
 * tests of the limiter and for in-process benchmarks. Every method is atomic (single-threaded JS).
 */
export class MemoryLimiterStore implements LimiterStore {
  private readonly items = new Map<string, Mutable<LimiterItem>>();

  async tryConsume(id: string, c: ConsumeCondition): Promise<Consumed | undefined> {
    const item = this.items.get(id);
    let perMinute: number | undefined;
    let perDay: number | undefined;
    if (c.limits === 'stored') {
      if (item?.status !== 'active') return undefined;
      perMinute = item.minuteLimit;
      perDay = item.dayLimit;
    } else {
      if (item?.status !== undefined && item.status !== 'active') return undefined;
      perMinute = c.limits.perMinute;
      perDay = c.limits.perDay;
    }
    if (item?.banUntil !== undefined && item.banUntil > c.nowMs) return undefined;
    // As in DynamoDB: a window without a counter yet accepts, whatever the limit.
    const inMinute = item !== undefined && item.minuteWindow === c.minuteWindow;
    const inDay = item !== undefined && item.dayWindow === c.dayWindow;
    if (inMinute && (perMinute === undefined || item.minuteCount >= perMinute)) return undefined;
    if (inDay && (perDay === undefined || item.dayCount >= perDay)) return undefined;

    const counted = item ?? { id, minuteWindow: 0, minuteCount: 0, dayWindow: 0, dayCount: 0 };
    counted.minuteCount = inMinute ? counted.minuteCount + 1 : 1;
    counted.minuteWindow = c.minuteWindow;
    counted.dayCount = inDay ? counted.dayCount + 1 : 1;
    counted.dayWindow = c.dayWindow;
    counted.lastUsedAt = c.nowMs;
    this.items.set(id, counted);
    const consumed: Mutable<Consumed> = { minuteCount: counted.minuteCount, dayCount: counted.dayCount };
    if (counted.minuteLimit !== undefined) consumed.minuteLimit = counted.minuteLimit;
    if (counted.dayLimit !== undefined) consumed.dayLimit = counted.dayLimit;
    return consumed;
  }

  async get(id: string): Promise<LimiterItem | undefined> {
    const item = this.items.get(id);
    return item ? { ...item } : undefined;
  }

  /** Writes an item as is: fixtures for tests (e.g. items written by an earlier version). */
  seed(item: LimiterItem): void {
    this.items.set(item.id, { ...item });
  }

  async addStrike(id: string, windowStart: number): Promise<number | undefined> {
    const item = this.items.get(id);
    if (!item || item.strikeWindowStart !== windowStart) return undefined;
    item.strikeCount = (item.strikeCount ?? 0) + 1;
    return item.strikeCount;
  }

  async restartStrikes(id: string, expectedStart: number | undefined, nowMs: number): Promise<boolean> {
    const item = this.items.get(id);
    if (!item || item.strikeWindowStart !== expectedStart) return false;
    item.strikeWindowStart = nowMs;
    item.strikeCount = 1;
    return true;
  }

  async ban(id: string, untilMs: number, nowMs: number): Promise<void> {
    const item = this.items.get(id);
    if (!item || (item.banUntil !== undefined && item.banUntil > nowMs)) return;
    item.banUntil = untilMs;
    item.strikeCount = 0;
  }

  async refund(id: string, windows: { minuteWindow: number; dayWindow: number }): Promise<void> {
    const item = this.items.get(id);
    if (!item || item.dayWindow !== windows.dayWindow || item.dayCount <= 0) return;
    item.dayCount -= 1;
    if (item.minuteWindow === windows.minuteWindow && item.minuteCount > 0) item.minuteCount -= 1;
  }

  async activateKey(id: string, limits: { perMinute: number; perDay: number }): Promise<void> {
    const item = this.items.get(id) ?? { id, minuteWindow: 0, minuteCount: 0, dayWindow: 0, dayCount: 0 };
    Object.assign(item, { status: 'active', minuteLimit: limits.perMinute, dayLimit: limits.perDay });
    this.items.set(id, item);
  }

  async setLimits(id: string, limits: { perMinute: number; perDay: number }): Promise<void> {
    const item = this.items.get(id);
    if (!item) throw new Error(`no limiter item ${id}`);
    Object.assign(item, { minuteLimit: limits.perMinute, dayLimit: limits.perDay });
  }

  async revokeKey(id: string): Promise<void> {
    const item = this.items.get(id) ?? { id, minuteWindow: 0, minuteCount: 0, dayWindow: 0, dayCount: 0 };
    item.status = 'revoked';
    this.items.set(id, item);
  }

  async liftBan(id: string): Promise<void> {
    const item = this.items.get(id);
    if (!item) return;
    delete item.banUntil;
    delete item.strikeWindowStart;
    item.strikeCount = 0;
  }
}
