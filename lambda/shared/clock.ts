/** Time is read through a clock so that tests of windows, resets and bans need not wait for real minutes. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Runs `task` once `ms` have passed on this clock (tests move it by hand). On Lambda a timer
   * runs only while the environment is thawed: during an invocation, or at the next one.
   */
  after?(ms: number, task: () => unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after: (ms, task) => {
    // Never keeps a process alive on its own (the CLI, tests).
    setTimeout(() => void task(), ms).unref();
  },
};
