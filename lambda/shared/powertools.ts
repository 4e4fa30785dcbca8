import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, type MetricUnit } from '@aws-lambda-powertools/metrics';

const PER_INVOCATION_LEVEL = (process.env.AWS_LAMBDA_MAX_CONCURRENCY ?? '') !== '';

/** Powertools' INFO threshold. */
const INFO = 12;

/** One logger and one metrics instance per function, configured by POWERTOOLS_* variables. */
export const logger = new (class extends Logger {
  // No initialiser: Powertools' constructor may set the level before subclass fields exist.
  declare private infoOn: boolean | undefined;

  /**
   * Whether an INFO line would be written, remembered until the level changes: reading the level
   * costs environment lookups. With per-invocation levels (Lambda managed-instance concurrency,
   * AWS_LAMBDA_MAX_CONCURRENCY) it is read every time.
   */
  infoLogged(): boolean {
    if (PER_INVOCATION_LEVEL) return this.level <= INFO;
    return (this.infoOn ??= this.level <= INFO);
  }

  override setLogLevel(logLevel: Parameters<Logger['setLogLevel']>[0]): void {
    super.setLogLevel(logLevel);
    this.infoOn = undefined;
  }
})();
export const metrics = new (class extends Metrics {
  /** Whether Powertools drops metrics (POWERTOOLS_METRICS_DISABLED, dev mode): nothing to hand over then. */
  publishes(): boolean {
    return !this.isDisabled();
  }
})({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'MessagesPlatform' });

/**
 * Whether an INFO line would be written: a hot path skips building it otherwise (Powertools does
 * the X-Ray and log-buffer lookups of a line before it checks the level). No log buffering is
 * configured, so a line below the level is simply dropped.
 */
export const infoLogged = (): boolean => logger.infoLogged();

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

interface PendingMetric {
  readonly name: string;
  readonly unit: Unit;
  readonly value: number;
  /** A metric with its own dimension goes out as a Powertools single metric, as `singleMetric()` would. */
  readonly dimension?: readonly [name: string, value: string];
}

/**
 * Metrics of the API handlers, buffered in a plain array and handed to Powertools once per
 * invocation by `flushMetrics`. Powertools validates and stores every `addMetric` with several
 * environment lookups, which cost more than the rest of a request; the EMF output is the same.
 */
const pending: PendingMetric[] = [];

export function recordMetric(name: string, unit: Unit, value: number, dimension?: readonly [string, string]): void {
  pending.push(dimension ? { name, unit, value, dimension } : { name, unit, value });
}

/** Publishes the buffered metrics (one EMF document, plus one per dimensioned metric); call at the end of an invocation. */
export function flushMetrics(): void {
  if (!metrics.publishes()) {
    pending.length = 0;
    return;
  }
  const batch = pending.splice(0);
  let stored = false;
  for (const m of batch) {
    if (m.dimension) {
      const single = metrics.singleMetric();
      single.addDimension(m.dimension[0], m.dimension[1]);
      single.addMetric(m.name, m.unit, m.value);
    } else {
      metrics.addMetric(m.name, m.unit, m.value);
      stored = true;
    }
  }
  if (stored || metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}
