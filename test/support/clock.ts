import type { Clock } from '../../lambda/shared/clock.js';

/**
 * A clock that tests move by hand; it starts at the given time and only moves when told. Its
 * timers (`after`) run when a move reaches them; `settled()` waits for what they started.
 */
export class ManualClock implements Clock {
  private timers: Array<{ at: number; task: () => unknown }> = [];
  private running: Promise<unknown>[] = [];

  constructor(private current: number = Date.now()) {}
  now(): number {
    return this.current;
  }

  set(epochMs: number): void {
    this.current = epochMs;
    this.fire();
  }

  advance(ms: number): void {
    this.current += ms;
    this.fire();
  }

  after(ms: number, task: () => unknown): void {
    this.timers.push({ at: this.current + ms, task });
  }

  /** Resolves once the tasks the clock's moves ran so far have finished. */
  async settled(): Promise<void> {
    const running = this.running;
    this.running = [];
    await Promise.allSettled(running);
  }

  private fire(): void {
    const due = this.timers.filter((t) => t.at <= this.current);
    this.timers = this.timers.filter((t) => t.at > this.current);
    for (const timer of due) this.running.push(Promise.resolve().then(timer.task));
  }
}
