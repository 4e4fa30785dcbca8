import type { Clock } from '../lambda/shared/clock.js';

/**
 * Simulated time for limiter-scale: `sleep` resolves when the run reaches its time, and between two
 * instants every continuation runs to its next `sleep`. Only code that waits through `sleep` may
 * run under it; a real timer would stall.
 */
export class VirtualTime implements Clock {
  /** Pending sleeps, the latest first: the next one due is the last (of those due together, the first set). */
  private readonly timers: Array<{ readonly at: number; readonly resolve: () => void }> = [];

  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  sleep(ms: number): Promise<void> {
    const at = this.current + Math.max(0, ms);
    let low = 0;
    let high = this.timers.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.timers[mid] as { at: number }).at > at) low = mid + 1;
      else high = mid;
    }
    return new Promise((resolve) => this.timers.splice(low, 0, { at, resolve }));
  }

  /** Runs every timer due up to `endMs`, in time order, then sets the clock to `endMs`. */
  async runUntil(endMs: number): Promise<void> {
    for (let next = this.timers.at(-1); next && next.at <= endMs; next = this.timers.at(-1)) {
      this.current = next.at;
      while (this.timers.at(-1)?.at === next.at) this.timers.pop()?.resolve();
      // Every continuation of the timers just resolved runs on microtasks before this macrotask.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.current = endMs;
  }
}

/** A seeded pseudo-random source (mulberry32): the same run on every box. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
