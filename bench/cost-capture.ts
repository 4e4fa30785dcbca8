import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, type MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger, metrics } from '../lambda/shared/powertools.js';
import { lambdaContext } from './events.js';

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];
type RecordedMetric = { readonly name: string; readonly unit: Unit; readonly dimension?: readonly [string, string] };

/** The bytes of the EMF documents these metrics make: one for the undimensioned, one per dimensioned. */
function emfBytes(recorded: readonly RecordedMetric[]): number {
  const doc = (metrics: readonly RecordedMetric[], dimension?: readonly [string, string]) => {
    const m = new Metrics({ namespace: 'MessagesPlatform', serviceName: 'messages-api' });
    if (dimension) m.addDimension(dimension[0], dimension[1]);
    for (const r of metrics) m.addMetric(r.name, r.unit, 1);
    return Buffer.byteLength(`${JSON.stringify(m.serializeMetrics())}\n`);
  };
  const plain = recorded.filter((r) => !r.dimension);
  const dimensioned = recorded.filter((r) => r.dimension);
  return (plain.length ? doc(plain) : 0) + dimensioned.reduce((n, r) => n + doc([r], r.dimension), 0);
}

/**
 * The bytes the handlers log at INFO (as deployed) and of their EMF documents, per invocation. The
 * handlers' logger stays at WARN (Powertools resets a level set by hand at each invocation), so its
 * INFO lines are written again by a shadow logger at INFO; metrics are disabled, so EMF is computed.
 */
export function logAndMetricCapture() {
  const totals = { logBytes: 0, emfBytes: 0 };
  const series = new Set<string>();
  const shadow = new Logger({ logLevel: 'INFO', serviceName: 'messages-api' });
  const write = process.stdout.write.bind(process.stdout);
  const info = logger.info.bind(logger);
  const addMetric = metrics.addMetric.bind(metrics);
  const singleMetric = metrics.singleMetric.bind(metrics);

  const capture = async <T>(requestId: string, invoke: () => Promise<T>): Promise<T> => {
    const recorded: RecordedMetric[] = [];
    shadow.addContext(lambdaContext(requestId));
    shadow.appendKeys({ correlation_id: requestId });
    process.stdout.write = ((chunk: string | Uint8Array) => {
      totals.logBytes += Buffer.byteLength(chunk);
      return true;
    }) as typeof process.stdout.write;
    type Log = (...args: unknown[]) => void;
    logger.info = ((...args: unknown[]) => {
      (shadow.info as Log)(...args);
      (info as Log)(...args);
    }) as typeof logger.info;
    metrics.addMetric = (name, unit, value) => {
      recorded.push({ name, unit });
      return addMetric(name, unit, value);
    };
    metrics.singleMetric = () => {
      let dimension: readonly [string, string] | undefined;
      const single = singleMetric();
      return Object.assign(single, {
        addDimension: (n: string, v: string) => ((dimension = [n, v]), single),
        addMetric: (name: string, unit: Unit) => {
          recorded.push({ name, unit, ...(dimension ? { dimension } : {}) });
          return single;
        },
      });
    };
    try {
      return await invoke();
    } finally {
      process.stdout.write = write;
      logger.info = info;
      metrics.addMetric = addMetric;
      metrics.singleMetric = singleMetric;
      totals.emfBytes += emfBytes(recorded);
      for (const r of recorded) series.add(r.dimension ? `${r.name}{${r.dimension.join('=')}}` : r.name);
    }
  };

  return {
    capture,
    totals,
    series,
    reset: () => {
      totals.logBytes = 0;
      totals.emfBytes = 0;
      series.clear();
    },
  };
}
