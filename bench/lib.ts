/** Shared pieces of the benchmarks: run options, one figure's result, percentiles, the platform. */
import type { LocalPlatform, LocalPlatformOptions } from '../local/platform.js';

export interface BenchOptions {
  /** Tiny counts: proves every figure runs. */
  readonly smoke: boolean;
}

export interface Figure {
  readonly figure: string;
  /** The measured value (a ratio where the figure is a comparison). */
  readonly value: string;
  readonly goal: string;
  /** true/false against the goal; null when the figure was skipped or has no goal (NO_GOAL). */
  readonly pass: boolean | null;
  /** Absolute numbers and anything else worth keeping in latest.json (context, not goals). */
  readonly details?: Record<string, unknown>;
}

/** The goal of a figure kept as context: it is read, not judged. */
export const NO_GOAL = 'none (context)';

/** Limits the limiter never reaches: the throughput figures measure the accepting path. */
export const UNLIMITED = { perMinute: 1_000_000_000, perDay: 1_000_000_000 };

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

/** Runs `fn` on a local platform on free ports, then stops it (imported late: see quietPowertools). */
export async function onPlatform<T>(
  options: Omit<LocalPlatformOptions, 'port' | 'controlPort' | 'edgePort'>,
  fn: (platform: LocalPlatform) => Promise<T>,
): Promise<T> {
  const { startLocalPlatform } = await import('../local/platform.js');
  const platform = await startLocalPlatform({ port: 0, controlPort: 0, edgePort: 0, ...options });
  try {
    return await fn(platform);
  } finally {
    await platform.stop();
  }
}

/** Quiet handlers, so the figures measure our code, not a terminal; set before the handler modules load. */
export function quietPowertools(): void {
  process.env.POWERTOOLS_SERVICE_NAME ??= 'bench';
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
}
