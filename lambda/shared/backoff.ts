import { DEFAULT_MAX_ATTEMPTS, MAXIMUM_RETRY_DELAY, Retry } from '@smithy/util-retry';

/**
 * How to retry what the SDK does not retry for us (a lost race, a batch call that took only some
 * of its items); SDK errors (throttles, 5xx) are the client's retry strategy's.
 */
export interface BackoffPolicy {
  /** Attempts in all; once they are spent the last error is rethrown. */
  readonly maxAttempts: number;
  /** Retry n waits `floor(random() × min(capMs, baseMs × 2^(n-1)))` (full jitter, as the SDK's). */
  readonly baseMs: number;
  readonly capMs: number;
}

/** Where the waiting happens: real timers on AWS and locally, a fake clock in tests. */
export interface Pacing {
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
}

export const REAL_PACING: Pacing = {
  sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

/** The SDK's standard retry strategy for a throttled call: its default attempts, throttling delay base and maximum delay. */
export const SDK_THROTTLING: BackoffPolicy = {
  maxAttempts: DEFAULT_MAX_ATTEMPTS,
  baseMs: Retry.throttlingDelay(),
  capMs: MAXIMUM_RETRY_DELAY,
};

/** The wait before retry `retry` (1 for the first retry), the SDK's full-jitter formula. */
export function backoffDelayMs(policy: BackoffPolicy, retry: number, random: () => number): number {
  return Math.floor(random() * Math.min(policy.capMs, policy.baseMs * 2 ** (retry - 1)));
}

/**
 * Runs `run` until it resolves, retrying the errors `retryable` accepts, at most
 * `policy.maxAttempts` attempts in all. `retryable` is asked only while an attempt is left.
 */
export async function withBackoff<T>(
  run: (attempt: number) => Promise<T>,
  policy: BackoffPolicy,
  retryable: (error: unknown) => boolean,
  pacing: Pacing = REAL_PACING,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run(attempt);
    } catch (error) {
      if (attempt >= policy.maxAttempts || !retryable(error)) throw error;
      await pacing.sleep(backoffDelayMs(policy, attempt, pacing.random));
    }
  }
}

class ItemsLeft extends Error {}

/**
 * Runs `attempt` on the items it has not taken yet (BatchWriteItem's UnprocessedItems,
 * SendMessageBatch's failed entries), paced as the SDK paces a throttle; throws `giveUp(left)` once
 * the attempts are spent, and an error of `attempt` at once.
 */
export async function untilAllTaken<T>(
  items: readonly T[],
  attempt: (pending: readonly T[]) => Promise<readonly T[]>,
  giveUp: (left: readonly T[]) => Error,
  pacing: Pacing = REAL_PACING,
): Promise<void> {
  let pending = items;
  try {
    await withBackoff(
      async () => {
        pending = await attempt(pending);
        if (pending.length > 0) throw new ItemsLeft();
      },
      SDK_THROTTLING,
      (error) => error instanceof ItemsLeft,
      pacing,
    );
  } catch (error) {
    if (error instanceof ItemsLeft) throw giveUp(pending);
    throw error;
  }
}

/** Runs `work` on every item, at most `concurrency` at once. */
export async function inParallel<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<unknown>) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

/** `items` in chunks of at most `size`, in order. */
export function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
