import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { metricsNamespaceOf } from '../../config/environment.js';
import { logDeliveryPolicy } from './log-retention.js';

/*
 * The customer-sites distribution, observable. CloudFront is global: its metrics are published in
 * us-east-1 only (an alarm must be in its metric's region), and its standard logging (v2) is set
 * up through CloudWatch Logs in us-east-1; so this lives in the `<prefix>-EdgeObservability` stack
 * there (lib/stacks/edge-observability-stack.ts), with an alarm topic of its own (a CloudWatch
 * alarm notifies a topic of its region).
 */

/** CloudFront's metrics and log delivery live here. */
export const CLOUDFRONT_METRICS_REGION = 'us-east-1';

/** The custom metric counting requests CloudFront could not serve from the origin (from the access logs). */
export const EDGE_ORIGIN_ERRORS_METRIC = 'EdgeOriginErrors';

/**
 * The `x-edge-detailed-result-type` values of a request that failed at the origin (CloudFront
 * Developer Guide, "Standard log file fields"). The access log line (JSON) carries the value
 * as a word of its own, so a term pattern matches it without a JSON selector.
 */
export const ORIGIN_ERROR_RESULT_TYPES = [
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
export const EDGE_ALARM_THRESHOLDS = {
  /** Percent of viewer requests answered 5xx, average over 5 minutes, two periods in a row. */
  serverErrorRatePercent: 5,
  /** Requests failed at the origin in 5 minutes, two periods in a row. */
  originErrorsPer5Minutes: 10,
} as const;

export interface EdgeObservabilityProps {
  /** The multi-tenant distribution (DomainsData stack). */
  readonly distributionId: string;
  /** Where the alarms notify (a topic in this stack's region). */
  readonly alarmTopic?: ITopic;
  /** @default logs.RetentionDays.THREE_MONTHS */
  readonly accessLogRetention?: logs.RetentionDays;
}

/** The distribution's 5xx rate (CloudFront metric, us-east-1). */
export function edgeServerErrorRate(distributionId: string): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: 'AWS/CloudFront',
    metricName: '5xxErrorRate',
    dimensionsMap: { DistributionId: distributionId, Region: 'Global' },
    statistic: 'Average',
    period: Duration.minutes(5),
    region: CLOUDFRONT_METRICS_REGION,
  });
}

/** Requests failed at the origin (the metric filter's metric, in the environment's namespace). */
export function edgeOriginErrors(namespace: string): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace,
    metricName: EDGE_ORIGIN_ERRORS_METRIC,
    statistic: 'Sum',
    period: Duration.minutes(5),
    region: CLOUDFRONT_METRICS_REGION,
  });
}

/** The edge's widgets for the ops dashboard (any region: a dashboard graphs metrics of other regions). */
export function edgeDashboardWidgets(distributionId: string, namespace: string): cloudwatch.IWidget[] {
  const requests = new cloudwatch.Metric({
    namespace: 'AWS/CloudFront',
    metricName: 'Requests',
    dimensionsMap: { DistributionId: distributionId, Region: 'Global' },
    statistic: 'Sum',
    period: Duration.minutes(5),
    region: CLOUDFRONT_METRICS_REGION,
  });
  return [
    new cloudwatch.GraphWidget({
      title: 'Edge (customer sites): requests and 5xx rate',
      left: [requests],
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

/**
 * Access logs of the distribution (standard logging v2: AWS::Logs::DeliverySource /
 * DeliveryDestination / Delivery) into a retained log group (CloudWatch Logs encrypts log data
 * at rest), a metric of the requests that failed at the origin, and two alarms: the 5xx rate
 * and the origin errors.
 */
export class EdgeObservability extends Construct {
  readonly accessLogs: logs.LogGroup;
  readonly serverErrorRateAlarm: cloudwatch.Alarm;
  readonly originErrorsAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: EdgeObservabilityProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const namespace = metricsNamespaceOf(this);

    // Retained: the access logs are the record of who fetched what from the customers' sites.
    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.accessLogRetention ?? logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const logGroupArn = stack.formatArn({
      service: 'logs',
      resource: 'log-group',
      resourceName: this.accessLogs.logGroupName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    // The log delivery service writes into the group (vended logs v2).
    const deliveryPolicy = logDeliveryPolicy(this, logGroupArn);

    const name = `${stack.stackName}-sites`.slice(0, 60);
    const source = new logs.CfnDeliverySource(this, 'DeliverySource', {
      name,
      logType: 'ACCESS_LOGS',
      resourceArn: stack.formatArn({
        service: 'cloudfront',
        region: '',
        resource: 'distribution',
        resourceName: props.distributionId,
      }),
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

    this.serverErrorRateAlarm = new cloudwatch.Alarm(this, 'ServerErrorRateAlarm', {
      alarmDescription:
        `Customer sites: more than ${EDGE_ALARM_THRESHOLDS.serverErrorRatePercent}% of requests answered 5xx. ` +
        'docs/operators/operations.md, "Alarms": EdgeServerErrorRateAlarm.',
      metric: edgeServerErrorRate(props.distributionId),
      threshold: EDGE_ALARM_THRESHOLDS.serverErrorRatePercent,
      evaluationPeriods: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.originErrorsAlarm = new cloudwatch.Alarm(this, 'OriginErrorsAlarm', {
      alarmDescription:
        `Customer sites: more than ${EDGE_ALARM_THRESHOLDS.originErrorsPer5Minutes} requests in 5 minutes failed at the origin (site bucket). ` +
        'docs/operators/operations.md, "Alarms": EdgeOriginErrorsAlarm.',
      metric: edgeOriginErrors(namespace),
      threshold: EDGE_ALARM_THRESHOLDS.originErrorsPer5Minutes,
      evaluationPeriods: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    if (props.alarmTopic) {
      for (const alarm of [this.serverErrorRateAlarm, this.originErrorsAlarm]) {
        alarm.addAlarmAction(new actions.SnsAction(props.alarmTopic));
        alarm.addOkAction(new actions.SnsAction(props.alarmTopic));
      }
    }
  }
}
