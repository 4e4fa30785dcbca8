/** Time is read through a clock so that tests of windows, resets and bans need not wait for real minutes. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
