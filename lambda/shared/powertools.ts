import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';

/** One logger, metrics and tracer per function, configured by the POWERTOOLS_* variables PlatformFunction sets. */
export const logger = new Logger();
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'MessagesPlatform',
  // Powertools warns on every invocation that stored no metric (a GET, a refusal: its metric is a
  // document of its own); those warnings would be a log line per request. Its errors still show.
  logger: logger.createChild({ logLevel: 'ERROR' }),
});
export const tracer = new Tracer();
