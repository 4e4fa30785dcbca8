/** The wait after the 1st, 2nd, … failed attempt: the 8th and last is 27.6 h after the first (docs/webhooks.md). */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000,
];

/** Attempts of one event to one endpoint, the first included. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** An endpoint whose every attempt failed for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 86_400_000;

/** A 2xx within this is a success; a slower answer is a failure (the attempt is cut off). */
export const ATTEMPT_TIMEOUT_MS = 15_000;

/** The longest a job waits in one hop: SQS's DelaySeconds maximum; longer waits are several hops (docs/webhooks.md, "How it works"). */
export const MAX_HOP_SECONDS = 900;

/** Epoch ms of the next attempt after `attemptsMade` failed ones, or undefined when they are spent. */
export function nextAttemptAt(attemptsMade: number, failedAt: number): number | undefined {
  const delay = RETRY_DELAYS_MS[attemptsMade - 1];
  return delay === undefined ? undefined : failedAt + delay;
}
