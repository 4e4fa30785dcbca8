import { StandardRetryStrategy } from '@smithy/util-retry';

/** Attempts of a batch call for the items it has not taken yet (the SDK's standard mode uses 3). */
export const BATCH_ATTEMPTS = 3;

/**
 * Runs `attempt` on the pending items until none is left, waiting between attempts as the SDK's
 * standard retry strategy does (jittered exponential backoff); `attempt` answers the items it did
 * not take (BatchWriteItem's UnprocessedItems, SendMessageBatch's failed entries). Throws
 * `giveUp(left)` once the attempts are spent.
 */
export async function untilAllTaken<T>(
  items: readonly T[],
  attempt: (pending: readonly T[]) => Promise<readonly T[]>,
  giveUp: (left: readonly T[]) => Error,
): Promise<void> {
  const strategy = new StandardRetryStrategy(BATCH_ATTEMPTS);
  let token = await strategy.acquireInitialRetryToken('batch');
  let pending = items;
  for (;;) {
    pending = await attempt(pending);
    if (pending.length === 0) return;
    try {
      token = await strategy.refreshRetryTokenForRetry(token, { errorType: 'THROTTLING' });
    } catch {
      throw giveUp(pending);
    }
    await new Promise((resolve) => setTimeout(resolve, token.getRetryDelay()));
  }
}

/** `items` in chunks of at most `size`, in order. */
export function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
