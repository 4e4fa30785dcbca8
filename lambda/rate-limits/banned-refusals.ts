import type { Clock } from '../shared/clock.js';
import { logger } from '../shared/powertools.js';
import { refusalCounter, utcDate } from './limiter-item.js';
import type { LimiterStore } from './limiter-store.js';
import { keyItemId } from './shards.js';

/** A container writes its banned refusals at most this often (one ADD per key and day). */
export const BANNED_FLUSH_INTERVAL_MS = 5_000;

/**
 * Counts banned keys' 429s for the usage history (docs/owners.md) without a write per refusal: a container writes
 * them at most once per interval, at once or trailing; the request that starts a write waits for it (a Lambda
 * environment freezes once it answers). A failed write is put back.
 */
export class BannedRefusalTally {
  /** `<keyId> <date>` → refusals not written yet. */
  private readonly pending = new Map<string, number>();
  private lastFlushMs = Number.NEGATIVE_INFINITY;
  private flushing = false;
  private trailing = false;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(private readonly clock: Clock) {}

  /** Counts one refusal; starts a write when one is due, else makes sure one will be. The returned promise never rejects. */
  note(store: LimiterStore, keyId: string, nowMs: number): Promise<void> {
    const entry = `${keyId} ${utcDate(nowMs)}`;
    this.pending.set(entry, (this.pending.get(entry) ?? 0) + 1);
    if (this.flushing || nowMs - this.lastFlushMs < BANNED_FLUSH_INTERVAL_MS) {
      this.writeLater(store, Math.max(0, this.lastFlushMs + BANNED_FLUSH_INTERVAL_MS - nowMs));
      return Promise.resolve();
    }
    return this.writeNow(store, nowMs);
  }

  private writeNow(store: LimiterStore, nowMs: number): Promise<void> {
    this.lastFlushMs = nowMs;
    this.inFlight = this.flush(store);
    return this.inFlight;
  }

  /** The trailing write: one timer at a time; when it fires, what is pending goes out (or waits its turn again). */
  private writeLater(store: LimiterStore, delayMs: number): void {
    if (this.trailing) return;
    this.trailing = true;
    const fire = async (): Promise<void> => {
      this.trailing = false;
      if (this.pending.size === 0) return;
      const nowMs = this.clock.now();
      const wait = this.lastFlushMs + BANNED_FLUSH_INTERVAL_MS - nowMs;
      if (this.flushing || wait > 0) return this.writeLater(store, Math.max(1, wait));
      await this.writeNow(store, nowMs);
    };
    if (this.clock.after) this.clock.after(delayMs, fire);
    else setTimeout(() => void fire(), delayMs).unref();
  }

  /** The write in flight, if any (never rejects): a refused request waits for it before answering. */
  settled(): Promise<void> {
    return this.inFlight;
  }

  /** Refusals not written yet, per `<keyId> <date>`. */
  unwritten(): ReadonlyMap<string, number> {
    return this.pending;
  }

  private async flush(store: LimiterStore): Promise<void> {
    const batch = [...this.pending];
    this.pending.clear();
    this.flushing = true;
    try {
      await Promise.all(
        batch.map(async ([entry, count]) => {
          const [keyId, date] = entry.split(' ') as [string, string];
          try {
            await store.adjustCounters(keyItemId(keyId), { [refusalCounter('banned', date)]: count });
          } catch (error) {
            // Kept for the next write: approximate counts, but never lost to one failed call.
            this.pending.set(entry, (this.pending.get(entry) ?? 0) + count);
            logger.warn('banned refusals not written yet; kept for the next write', { keyId, error: error as Error });
          }
        }),
      );
    } finally {
      this.flushing = false;
    }
    // A failed write's counts (put back above) go out with the next interval's write.
    if (this.pending.size > 0) this.writeLater(store, BANNED_FLUSH_INTERVAL_MS);
  }
}
