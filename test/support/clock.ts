import type { Clock } from '../../lambda/shared/clock.js';

/** A clock that tests move by hand; it starts at the given time and only moves when told. */
export class ManualClock implements Clock {
  constructor(private current: number = Date.now()) {}
  now(): number {
    return this.current;
  }

  set(epochMs: number): void {
    this.current = epochMs;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
