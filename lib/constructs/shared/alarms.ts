import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

/** An alarm at `threshold` or above in one period, quiet without data. */
export function thresholdAlarm(
  scope: Construct,
  id: string,
  alarmDescription: string,
  metric: cloudwatch.IMetric,
  threshold: number,
  more: Partial<cloudwatch.AlarmProps> = {},
): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, id, {
    alarmDescription,
    metric,
    threshold,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    ...more,
  });
}

/** Makes `topic` (when given) the alarm and OK action of every alarm. */
export function notify(topic: ITopic | undefined, ...alarms: cloudwatch.Alarm[]): void {
  if (!topic) return;
  const action = new SnsAction(topic);
  for (const alarm of alarms) {
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
  }
}
