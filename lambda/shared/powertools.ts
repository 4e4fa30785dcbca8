import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/** One logger and one metrics instance per function, configured by POWERTOOLS_* variables. */
export const logger = new Logger();
export const metrics = new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'MessagesPlatform' });
