import { logger } from '../shared/powertools.js';
import { refusalCounter, utcDate } from './limiter-item.js';
import type { LimiterStore } from './limiter-store.js';
import { keyItemId } from './shards.js';

/** A container writes its banned refusals at most this often (one ADD per key and day). */
export const BANNED_FLUSH_INTERVAL_MS = 5_000;

/**
 * Counts the 429s of banned keys for the usage history. A banned key is refused from the
 * container's memory or from a marker its request write met, with no write of its own; writing
 * each refusal would let a banned key that keeps flooding buy a write per request. So a container
 * adds them up and writes them (the key item's `banned:<date>`, one ADD per key and day) with the
 * first banned refusal at least BANNED_FLUSH_INTERVAL_MS after its last write. Counts are lower
 * bounds: what a container still holds when it is recycled, or after the flood's last flush, is
 * never written. The refused request that starts a write waits for it (RateLimiter awaits
 * `settled()` before it answers a ban), because a Lambda environment is frozen once its answer is
 * sent, and a write left in flight there may never reach DynamoDB. A failed write is put back.
 */
export class BannedRefusalTally {
  /** `<keyId> <date>` → refusals not written yet. */
  private readonly pending = new Map<string, number>();
  private lastFlushMs = Number.NEGATIVE_INFINITY;
  private flushing = false;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(private readonly flushIntervalMs = BANNED_FLUSH_INTERVAL_MS) {}

  /** Counts one refusal; starts a write when one is due. The returned promise never rejects. */
  note(store: LimiterStore, keyId: string, nowMs: number): Promise<void> {
    const entry = `${keyId} ${utcDate(nowMs)}`;
    this.pending.set(entry, (this.pending.get(entry) ?? 0) + 1);
    if (this.flushing || nowMs - this.lastFlushMs < this.flushIntervalMs) return Promise.resolve();
    this.lastFlushMs = nowMs;
    this.inFlight = this.flush(store);
    return this.inFlight;
  }

  /** The write in flight, if any (never rejects): a refused request waits for it before answering. */
  settled(): Promise<void> {
    return this.inFlight;
  }

  /** Refusals counted but not written yet, per `<keyId> <date>` (for tests and logs). */
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
  }
}
