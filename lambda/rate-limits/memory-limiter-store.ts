import type { ConsumeCondition, Consumed, Counts, LimiterItem, LimiterStore } from './limiter-store.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * In-memory limiter store with the same conditional semantics as the DynamoDB store, for unit
 * tests of the limiter and for in-process benchmarks. Every method is atomic (single-threaded JS).
 */
export class MemoryLimiterStore implements LimiterStore {
  private readonly items = new Map<string, Mutable<LimiterItem>>();

  async tryConsume(id: string, c: ConsumeCondition): Promise<Consumed | undefined> {
    const item = this.items.get(id);
    const perMinute = c.limits === 'stored' ? item?.minuteLimit : c.limits.perMinute;
    const perDay = c.limits === 'stored' ? item?.dayLimit : c.limits.perDay;
    if (
      !item ||
      perMinute === undefined ||
      perDay === undefined ||
      item.minuteWindow !== c.minuteWindow ||
      item.dayWindow !== c.dayWindow ||
      item.minuteCount >= perMinute ||
      item.dayCount >= perDay ||
      (item.status !== undefined && item.status !== 'active') ||
      (item.banUntil !== undefined && item.banUntil > c.nowMs)
    ) {
      return undefined;
    }
    item.minuteCount += 1;
    item.dayCount += 1;
    item.lastUsedAt = c.nowMs;
    const consumed: Mutable<Consumed> = { minuteCount: item.minuteCount, dayCount: item.dayCount };
    if (item.minuteLimit !== undefined) consumed.minuteLimit = item.minuteLimit;
    if (item.dayLimit !== undefined) consumed.dayLimit = item.dayLimit;
    return consumed;
  }

  async get(id: string): Promise<LimiterItem | undefined> {
    const item = this.items.get(id);
    return item ? { ...item } : undefined;
  }

  async replaceCounts(
    id: string,
    expected: LimiterItem | undefined,
    next: Counts & { minuteWindow: number; dayWindow: number; lastUsedAt: number },
  ): Promise<boolean> {
    const item = this.items.get(id);
    if (expected === undefined) {
      if (item) return false;
      this.items.set(id, { id, ...next });
      return true;
    }
    if (
      !item ||
      item.minuteWindow !== expected.minuteWindow ||
      item.minuteCount !== expected.minuteCount ||
      item.dayWindow !== expected.dayWindow ||
      item.dayCount !== expected.dayCount
    ) {
      return false;
    }
    Object.assign(item, next);
    return true;
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
