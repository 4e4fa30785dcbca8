import { Duration, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { metricsNamespaceOf } from '../../config/environment.js';
import { notify, thresholdAlarm } from '../shared/alarms.js';
import { accountUniqueName } from '../shared/names.js';
import type { MessagesData } from './messages-data.js';
import type { MessagesFunctions } from './messages-functions.js';

/** Powertools service names (the `service` dimension of the platform's custom metrics). */
const SERVICES = { api: 'messages-api', worker: 'messages-worker' } as const;

export const DEFAULT_API_LATENCY_P99_THRESHOLD_MS = 1000;

export type MessagesAlarms = ReturnType<typeof createMessagesAlarms>;

/** What the alarms and the operators' dashboard watch. */
export interface MessagesObservabilityProps {
  readonly api: apigw.RestApi;
  readonly functions: MessagesFunctions;
  readonly data: Pick<MessagesData, 'queue' | 'deadLetterQueue'>;
  readonly apiLatencyP99ThresholdMs: number;
  /** @default - alarms have no actions */
  readonly alarmTopic?: sns.ITopic;
}

/** A dead-letter queue's depth, the metric of its alarm. */
export const deadLetteredMetric = (queue: sqs.IQueue) =>
  queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: cloudwatch.Stats.MAXIMUM });

/** The alarms of the Messages API, created in `scope` itself (ids `<Name>Alarm`). */
export function createMessagesAlarms(scope: Construct, props: MessagesObservabilityProps) {
  const { api, functions, data } = props;
  const fiveMinutes = Duration.minutes(5);
  const deadLetterQueue = thresholdAlarm(
    scope,
    'DeadLetterQueueAlarm',
    'Messages were dead-lettered (status "failed") after exhausting their receives. Inspect them, fix the cause, then redrive the dead-letter queue to the messages queue.',
    deadLetteredMetric(data.deadLetterQueue),
    1,
  );
  const serverErrors = thresholdAlarm(
    scope,
    'ServerErrorAlarm',
    'The Messages API answered 5XX (handler, authorizer or integration failures).',
    api.metricServerError({ period: fiveMinutes, statistic: cloudwatch.Stats.SUM }),
    5,
  );
  const workerErrors = thresholdAlarm(
    scope,
    'WorkerErrorAlarm',
    'The queue worker failed whole invocations (errors or timeouts, not per-message failures); the batch will be retried.',
    functions.worker.function.metricErrors({ period: fiveMinutes, statistic: cloudwatch.Stats.SUM }),
    1,
  );
  const functionEntries = Object.entries(functions);
  // One series per function, summed; a function that was not invoked reports no data (FILL 0).
  const throttles = thresholdAlarm(
    scope,
    'LambdaThrottleAlarm',
    'A function of the Messages API (authorizer, handlers or worker) was throttled: the account or a reserved concurrency limit was reached. Throttled API calls fail with 5XX/429; a throttled worker delays the queue.',
    new cloudwatch.MathExpression({
      expression: functionEntries.map((_, i) => `FILL(t${i}, 0)`).join(' + '),
      usingMetrics: Object.fromEntries(
        functionEntries.map(([, fn], i) => [`t${i}`, fn.function.metricThrottles({ statistic: cloudwatch.Stats.SUM })]),
      ),
      label: 'Throttles (all functions)',
      period: fiveMinutes,
    }),
    1,
  );
  const latencyThresholdMs = props.apiLatencyP99ThresholdMs;
  const apiLatency = thresholdAlarm(
    scope,
    'ApiLatencyAlarm',
    `The p99 latency of the Messages API (API Gateway Latency: authorizer, handler and integration) is above ${latencyThresholdMs} ms for 10 minutes.`,
    api.metricLatency({ period: fiveMinutes, statistic: cloudwatch.Stats.p(99) }),
    latencyThresholdMs,
    {
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 2,
      datapointsToAlarm: 2,
    },
  );
  const queueAge = thresholdAlarm(
    scope,
    'QueueAgeAlarm',
    'The oldest message of the messages queue has waited 5 minutes or more: the worker is not keeping up, is failing or throttled, or its event source mapping is disabled.',
    data.queue.metricApproximateAgeOfOldestMessage({ period: fiveMinutes, statistic: cloudwatch.Stats.MAXIMUM }),
    fiveMinutes.toSeconds(),
  );
  const alarms = { deadLetterQueue, serverErrors, workerErrors, throttles, apiLatency, queueAge };
  notify(props.alarmTopic, ...Object.values(alarms));
  return alarms;
}

/** The operators' CloudWatch dashboard of the Messages API, created in `scope` itself. */
export function createOpsDashboard(
  scope: Construct,
  props: Omit<MessagesObservabilityProps, 'alarmTopic'> & { readonly alarms: MessagesAlarms },
): cloudwatch.Dashboard {
  const { api, functions, data, alarms } = props;
  const stack = Stack.of(scope);
  const namespace = metricsNamespaceOf(scope);
  const period = Duration.minutes(5);
  const sum = cloudwatch.Stats.SUM;
  const maximum = (label: string) => ({ period, statistic: cloudwatch.Stats.MAXIMUM, label });
  const custom = (metricName: string, service: string, label: string, statistic: string = sum) =>
    new cloudwatch.Metric({
      namespace,
      metricName,
      dimensionsMap: { service },
      statistic,
      label,
      period,
    });
  const perFunction = (metricOf: (fn: lambda.IFunction) => cloudwatch.IMetric) =>
    Object.entries(functions).map(([label, fn]) =>
      (metricOf(fn.function) as cloudwatch.Metric).with({ label, period }),
    );
  const graph = (title: string, left: cloudwatch.IMetric[], extra: Partial<cloudwatch.GraphWidgetProps> = {}) =>
    new cloudwatch.GraphWidget({ title, left, width: 8, height: 6, ...extra });

  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', {
    // Dashboard names are unique per account, across regions.
    dashboardName: accountUniqueName(stack, 'messages', 255),
    defaultInterval: Duration.hours(3),
  });
  dashboard.addWidgets(
    new cloudwatch.TextWidget({
      markdown: `# Messages API (${stack.stackName})
Alarms and what to do: docs/operators/operations.md. Custom metrics: namespace \`${namespace}\`, by \`service\`.`,
      width: 12,
      height: 3,
    }),
    new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: Object.values(alarms), width: 12, height: 3 }),
  );
  dashboard.addWidgets(
    graph('API requests, 4XX and 5XX', [
      api.metricCount({ period, statistic: sum, label: 'Requests' }),
      api.metricClientError({ period, statistic: sum, label: '4XX' }),
      api.metricServerError({ period, statistic: sum, label: '5XX' }),
    ]),
    graph(
      'API latency (p50, p99)',
      [
        api.metricLatency({ period, statistic: cloudwatch.Stats.p(50), label: 'p50' }),
        api.metricLatency({ period, statistic: cloudwatch.Stats.p(99), label: 'p99' }),
      ],
      { leftAnnotations: [{ value: props.apiLatencyP99ThresholdMs, label: 'p99 alarm' }] },
    ),
    graph('Accepted vs rejected (by reason)', [
      custom('MessageAccepted', SERVICES.api, 'accepted'),
      new cloudwatch.MathExpression({
        // Every rejection the handlers count, by reason and service: a SEARCH also shows reasons added later.
        expression: `SEARCH('{${namespace},reason,service} MetricName="RequestRejected"', 'Sum', 300)`,
        label: 'rejected: ${PROP(\'Dim.reason\')}',
        period,
      }),
    ]),
  );
  dashboard.addWidgets(
    graph('Worker: processed, failed, orphans', [
      custom('MessageProcessed', SERVICES.worker, 'processed'),
      custom('MessageFailed', SERVICES.worker, 'failed'),
      custom('OrphanDropped', SERVICES.worker, 'orphans dropped'),
    ]),
    graph('Limiter latency (p50, p99)', [
      custom('LimiterLatency', SERVICES.api, 'p50', cloudwatch.Stats.p(50)),
      custom('LimiterLatency', SERVICES.api, 'p99', cloudwatch.Stats.p(99)),
    ]),
    graph(
      'Queue depth and age of oldest message',
      [
        data.queue.metricApproximateNumberOfMessagesVisible(maximum('visible')),
        data.queue.metricApproximateNumberOfMessagesNotVisible(maximum('in flight')),
      ],
      {
        right: [data.queue.metricApproximateAgeOfOldestMessage(maximum('age of oldest (s)'))],
        rightAnnotations: [{ value: Duration.minutes(5).toSeconds(), label: 'age alarm' }],
      },
    ),
  );
  dashboard.addWidgets(
    graph('DLQ depth', [deadLetteredMetric(data.deadLetterQueue).with({ period, label: 'dead-lettered' })], {
      leftAnnotations: [{ value: 1, label: 'DLQ alarm' }],
    }),
    graph('Lambda errors', perFunction((fn) => fn.metricErrors({ statistic: sum }))),
    graph('Lambda throttles', perFunction((fn) => fn.metricThrottles({ statistic: sum }))),
  );
  dashboard.addWidgets(
    graph('Lambda duration (p99)', perFunction((fn) => fn.metricDuration({ statistic: cloudwatch.Stats.p(99) }))),
    graph('Concurrent executions', [
      ...perFunction((fn) => fn.metric('ConcurrentExecutions', { statistic: cloudwatch.Stats.MAXIMUM })),
      lambda.Function.metricAllConcurrentExecutions(maximum('account (region)')),
    ]),
  );
  return dashboard;
}
