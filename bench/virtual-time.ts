import type { Clock } from '../lambda/shared/clock.js';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly resolve: () => void;
}

/**
 * Simulated time for the limiter benchmark: `sleep` resolves when the run reaches its time, and
 * between two instants every continuation runs to its next `sleep`. The figures are then counts
 * in simulated seconds, the same on a busy 2-core box as on an idle one. Only code that waits
 * through `sleep` (the simulated network and retries) may run under it; a real timer would stall.
 */
export class VirtualTime implements Clock {
  private current: number;
  private seq = 0;
  private readonly heap: Timer[] = [];

  constructor(startMs: number) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.push({ at: this.current + Math.max(0, ms), seq: this.seq++, resolve }));
  }

  /** Runs every timer due up to `endMs`, in time order, then sets the clock to `endMs`. */
  async runUntil(endMs: number): Promise<void> {
    for (;;) {
      const next = this.heap[0];
      if (!next || next.at > endMs) break;
      this.current = next.at;
      while (this.heap[0] && this.heap[0].at === next.at) this.pop().resolve();
      // Every continuation of the timers just resolved runs on microtasks before this macrotask.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.current = endMs;
  }

  private push(timer: Timer): void {
    const heap = this.heap;
    heap.push(timer);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as Timer, heap[parent] as Timer)) break;
      [heap[i], heap[parent]] = [heap[parent] as Timer, heap[i] as Timer];
      i = parent;
    }
  }

  private pop(): Timer {
    const heap = this.heap;
    const top = heap[0] as Timer;
    const last = heap.pop() as Timer;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        if (l < heap.length && before(heap[l] as Timer, heap[smallest] as Timer)) smallest = l;
        if (r < heap.length && before(heap[r] as Timer, heap[smallest] as Timer)) smallest = r;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest] as Timer, heap[i] as Timer];
        i = smallest;
      }
    }
    return top;
  }
}

const before = (a: Timer, b: Timer) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

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
