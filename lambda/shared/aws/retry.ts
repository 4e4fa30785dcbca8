/** The cap of any one wait between attempts. */
const MAX_BACKOFF_MS = 2_000;
/** Attempts per call and the base of the backoff when a client's config gives none. */
export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_RETRY_BASE_MS = 50;

/**
 * The wait before retry `attempt` (1-based: after the first failed attempt) of the platform's AWS
 * client: full jitter below an exponential cap of 2 s; throttling backs off from twice the base.
 * Its own module so that a simulation of DynamoDB (the benchmarks' item write ceiling) retries
 * exactly as the client does.
 */
export function retryDelayMs(
  attempt: number,
  throttled: boolean,
  baseMs = DEFAULT_RETRY_BASE_MS,
  random = Math.random,
): number {
  const cap = Math.min(MAX_BACKOFF_MS, (throttled ? 2 : 1) * baseMs * 2 ** (attempt - 1));
  return Math.floor(random() * cap);
}
