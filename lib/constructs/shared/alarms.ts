import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';

/** Makes `topic` (when given) the alarm and OK action of every alarm. */
export function notify(topic: ITopic | undefined, ...alarms: cloudwatch.Alarm[]): void {
  if (!topic) return;
  const action = new SnsAction(topic);
  for (const alarm of alarms) {
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
  }
}
