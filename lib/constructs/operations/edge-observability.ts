import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { metricsNamespaceOf } from '../../config/environment.js';
import { notify, thresholdAlarm } from '../shared/alarms.js';
import { cloudfrontArn } from '../shared/arns.js';
import { logDelivery } from './log-retention.js';

/** CloudFront publishes its metrics and delivers its logs here only (an alarm must be in its metric's region). */
export const CLOUDFRONT_METRICS_REGION = 'us-east-1';

/** The custom metric counting requests CloudFront could not serve from the origin (from the access logs). */
const EDGE_ORIGIN_ERRORS_METRIC = 'EdgeOriginErrors';

/** `x-edge-detailed-result-type` values of a request failed at the origin: whole words, so a term pattern matches. */
const ORIGIN_ERROR_RESULT_TYPES = [
  'OriginCommError',
  'OriginConnectError',
  'OriginContentRangeLengthError',
  'OriginDnsError',
  'OriginError',
  'OriginHeaderTooBigError',
  'OriginInvalidResponseError',
  'OriginReadError',
  'OriginWriteError',
  'OriginZeroSizeObjectError',
] as const;

/** Thresholds of the edge alarms (docs/operators/operations.md, "Alarms"). */
const EDGE_ALARM_THRESHOLDS = {
  /** Percent of viewer requests answered 5xx, average over 5 minutes, two periods in a row. */
  serverErrorRatePercent: 5,
  /** Requests failed at the origin in 5 minutes, two periods in a row. */
  originErrorsPer5Minutes: 10,
} as const;

export interface EdgeObservabilityProps {
  readonly distributionId: string;
  /** Where the alarms notify (a topic in this stack's region). */
  readonly alarmTopic?: ITopic;
}

/** A 5-minute metric in CloudFront's region; CloudFront's own have the distribution as dimensions. */
function edgeMetric(namespace: string, metricName: string, statistic: string, distributionId?: string) {
  return new cloudwatch.Metric({
    namespace,
    metricName,
    dimensionsMap: distributionId ? { DistributionId: distributionId, Region: 'Global' } : undefined,
    statistic,
    period: Duration.minutes(5),
    region: CLOUDFRONT_METRICS_REGION,
  });
}

const cloudfrontMetric = (metricName: string, statistic: string, distributionId: string) =>
  edgeMetric('AWS/CloudFront', metricName, statistic, distributionId);
const edgeServerErrorRate = (distributionId: string) => cloudfrontMetric('5xxErrorRate', 'Average', distributionId);
const edgeOriginErrors = (namespace: string) => edgeMetric(namespace, EDGE_ORIGIN_ERRORS_METRIC, 'Sum');

/** The edge's widgets for the ops dashboard (any region: a dashboard graphs metrics of other regions). */
export function edgeDashboardWidgets(distributionId: string, namespace: string): cloudwatch.IWidget[] {
  return [
    new cloudwatch.GraphWidget({
      title: 'Edge (customer sites): requests and 5xx rate',
      left: [cloudfrontMetric('Requests', 'Sum', distributionId)],
      right: [edgeServerErrorRate(distributionId)],
      rightAnnotations: [{ value: EDGE_ALARM_THRESHOLDS.serverErrorRatePercent, label: '5xx alarm' }],
      width: 12,
    }),
    new cloudwatch.GraphWidget({
      title: 'Edge (customer sites): origin errors',
      left: [edgeOriginErrors(namespace)],
      leftAnnotations: [{ value: EDGE_ALARM_THRESHOLDS.originErrorsPer5Minutes, label: 'alarm' }],
      width: 12,
    }),
  ];
}

/** The customer-sites distribution's access logs (standard logging v2), its origin-error metric and alarms. */
export class EdgeObservability extends Construct {
  readonly accessLogs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: EdgeObservabilityProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const namespace = metricsNamespaceOf(this);

    // Retained: the record of who fetched what from the customers' sites.
    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const { logGroupArn, policy: deliveryPolicy } = logDelivery(this, this.accessLogs.logGroupName);

    const name = `${stack.stackName}-sites`.slice(0, 60);
    const source = new logs.CfnDeliverySource(this, 'DeliverySource', {
      name,
      logType: 'ACCESS_LOGS',
      resourceArn: cloudfrontArn(stack, 'distribution', props.distributionId),
    });
    const destination = new logs.CfnDeliveryDestination(this, 'DeliveryDestination', {
      name,
      destinationResourceArn: logGroupArn,
      outputFormat: 'json',
    });
    const delivery = new logs.CfnDelivery(this, 'Delivery', {
      deliverySourceName: source.name,
      deliveryDestinationArn: destination.attrArn,
    });
    delivery.addResourceDependency(source);
    delivery.node.addDependency(deliveryPolicy);

    new logs.MetricFilter(this, 'OriginErrors', {
      logGroup: this.accessLogs,
      filterPattern: logs.FilterPattern.anyTerm(...ORIGIN_ERROR_RESULT_TYPES),
      metricNamespace: namespace,
      metricName: EDGE_ORIGIN_ERRORS_METRIC,
      metricValue: '1',
      defaultValue: 0,
    });

    const { serverErrorRatePercent: rate, originErrorsPer5Minutes: originErrors } = EDGE_ALARM_THRESHOLDS;
    const alarm = (id: string, metric: cloudwatch.Metric, threshold: number, what: string) =>
      thresholdAlarm(this, id, `Customer sites: more than ${what}. docs/operators/operations.md, "Alarms": Edge${id}.`, metric, threshold, {
        evaluationPeriods: 2,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    notify(
      props.alarmTopic,
      alarm('ServerErrorRateAlarm', edgeServerErrorRate(props.distributionId), rate, `${rate}% of requests answered 5xx`),
      alarm('OriginErrorsAlarm', edgeOriginErrors(namespace), originErrors, `${originErrors} requests in 5 minutes failed at the origin (site bucket)`),
    );
  }
}
