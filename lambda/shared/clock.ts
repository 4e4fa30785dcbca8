/** Time is read through a clock so that tests of windows, resets and bans need not wait for real minutes. */
export interface Clock {
  now(): number;
  /** Runs `task` once `ms` have passed on this clock (on Lambda, while the environment is thawed). */
  after?(ms: number, task: () => unknown): void;
}

/** The clock's time as an ISO 8601 string. */
export const nowIso = (clock: Clock): string => new Date(clock.now()).toISOString();

export const systemClock: Clock = {
  now: () => Date.now(),
  after: (ms, task) => {
    // Never keeps a process alive on its own (the CLI, tests).
    setTimeout(() => void task(), ms).unref();
  },
};
