import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { notify, thresholdAlarm } from '../shared/alarms.js';

/** What the schedule sends: `drift` present sends the execution down the drift branch. */
export const DRIFT_CHECK_INPUT = { drift: {} } as const;

export interface DomainDriftScheduleProps {
  readonly stateMachine: sfn.IStateMachine;
  readonly intervalMinutes: number;
  readonly alarmTopic?: sns.ITopic;
}

/** The drift check's schedule; a start is retried for one interval, then dropped (DriftCheckDropped). */
export class DomainDriftSchedule extends Construct {
  readonly group: scheduler.ScheduleGroup;
  readonly alarms: { readonly dropped: cloudwatch.Alarm };

  constructor(scope: Construct, id: string, props: DomainDriftScheduleProps) {
    super(scope, id);
    // Nothing to keep: the group only holds this schedule, and a re-created stack makes a new one.
    this.group = new scheduler.ScheduleGroup(this, 'Group', { removalPolicy: RemovalPolicy.DESTROY });
    const interval = Duration.minutes(props.intervalMinutes);
    new scheduler.Schedule(this, 'Schedule', {
      scheduleGroup: this.group,
      schedule: scheduler.ScheduleExpression.rate(interval),
      description: 'Custom domains: re-check every live domain\'s DNS (the domain flow\'s drift branch)',
      target: new targets.StepFunctionsStartExecution(props.stateMachine, {
        input: scheduler.ScheduleTargetInput.fromObject(DRIFT_CHECK_INPUT),
        // Scheduler's bounds: an event age of 60 s to 24 h.
        maxEventAge: Duration.seconds(Math.min(Math.max(interval.toSeconds(), 60), 24 * 60 * 60)),
        retryAttempts: 10,
      }),
    });
    const dropped = thresholdAlarm(
      this,
      'DriftCheckDroppedAlarm',
      'The domain drift check schedule could not start the domain flow (InvocationDroppedCount), even after retries: live domains were not re-checked this interval. Check the schedule role\'s states:StartExecution grant and the state machine; the next run is started on schedule.',
      this.group.metricDropped({ period: Duration.hours(1), statistic: cloudwatch.Stats.SUM }),
      1,
    );
    notify(props.alarmTopic, dropped);
    this.alarms = { dropped };
  }
}
