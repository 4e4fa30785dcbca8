/** Shared pieces of the benchmarks: run options, one figure's result, percentiles, timing. */

export interface BenchOptions {
  /** Tiny counts: proves every figure runs, in well under a minute. */
  readonly smoke: boolean;
}

export interface Figure {
  /** Short name, printed first on the figure's line. */
  readonly figure: string;
  /** The measured value (a ratio where the figure is a comparison). */
  readonly value: string;
  /** The goal, as text. */
  readonly goal: string;
  /** true/false against the goal; null when the figure was skipped or has no goal (NO_GOAL). */
  readonly pass: boolean | null;
  /** Absolute numbers and anything else worth keeping in latest.json (context, not goals). */
  readonly details?: Record<string, unknown>;
}

/** The goal of a figure kept as context: it is read, not judged. */
export const NO_GOAL = 'none (context)';

const result = (f: Figure) => (f.pass === null ? (f.goal === NO_GOAL ? 'context' : 'skipped') : f.pass ? 'pass' : 'fail');

export const figureLine = (f: Figure) => `${f.figure} | ${f.value} | ${f.goal} | ${result(f)}`;

/** Percentile (nearest rank) of an unsorted sample. */
export function percentile(sample: readonly number[], p: number): number {
  if (sample.length === 0) return Number.NaN;
  const sorted = [...sample].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export const median = (sample: readonly number[]) => percentile(sample, 50);

export const round = (n: number, digits = 2) => Number(n.toFixed(digits));

/** Milliseconds since an arbitrary origin, sub-millisecond resolution. */
export const nowMs = () => performance.now();

/** Runs `count` calls of `fn` with at most `concurrency` in flight. */
export async function pool<T>(count: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await fn(i);
      }
    }),
  );
  return results;
}

/** Runs `fn` with at most `concurrency` in flight for `durationMs`; returns each call's latency (ms). */
export async function closedLoop(
  durationMs: number,
  concurrency: number,
  fn: () => Promise<void>,
): Promise<{ latencies: number[]; elapsedMs: number; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const start = nowMs();
  const end = start + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (nowMs() < end) {
        const t = nowMs();
        try {
          await fn();
          latencies.push(nowMs() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  return { latencies, elapsedMs: nowMs() - start, errors };
}

/**
 * Quiet handlers: Powertools logs at WARN and metrics are not flushed to stdout, so the figures
 * measure our code and the emulators, not a terminal. Set before the handler modules are imported.
 */
export function quietPowertools(): void {
  process.env.POWERTOOLS_SERVICE_NAME ??= 'bench';
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
}
