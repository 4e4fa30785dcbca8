import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as targets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

/** What the schedule sends: `drift` present sends the execution down the drift branch. */
export const DRIFT_CHECK_INPUT = { drift: {} } as const;

export interface DomainDriftScheduleProps {
  /** The domain flow; each run is one execution of its drift branch. */
  readonly stateMachine: sfn.IStateMachine;
  /** Minutes between runs (config domains.driftCheck.intervalMinutes). */
  readonly intervalMinutes: number;
  /**
   * Where alarms notify (alarm and OK actions).
   * @default - no actions; the alarm is visible in CloudWatch only
   */
  readonly alarmTopic?: sns.ITopic;
}

/**
 * The drift check's clock on AWS: an EventBridge Scheduler schedule, in a group of its own (its
 * metrics are per group), starting an execution of the domain flow with DRIFT_CHECK_INPUT. The
 * schedule's role may start executions of that state machine only (the target grants
 * states:StartExecution on its ARN). Step Functions names each execution itself, so runs never
 * collide; a run that outlasts the interval overlaps the next one harmlessly (every write of the
 * drift task is conditional).
 *
 * A start that keeps failing is retried for up to one interval (no point starting a run when the
 * next is due); past that the invocation is dropped and the DriftCheckDropped alarm fires. A run that
 * starts and then fails raises the flow's own failed-executions alarm (DriftCheckFailed).
 */
export class DomainDriftSchedule extends Construct {
  readonly group: scheduler.ScheduleGroup;
  readonly schedule: scheduler.Schedule;
  readonly alarms: { readonly dropped: cloudwatch.Alarm };

  constructor(scope: Construct, id: string, props: DomainDriftScheduleProps) {
    super(scope, id);
    // Nothing to keep: the group only holds this schedule, and a re-created stack makes a new one.
    this.group = new scheduler.ScheduleGroup(this, 'Group', { removalPolicy: RemovalPolicy.DESTROY });
    const interval = Duration.minutes(props.intervalMinutes);
    this.schedule = new scheduler.Schedule(this, 'Schedule', {
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
    const dropped = new cloudwatch.Alarm(this, 'DriftCheckDroppedAlarm', {
      alarmDescription:
        'The domain drift check schedule could not start the domain flow (InvocationDroppedCount), even after retries: live domains were not re-checked this interval. Check the schedule role\'s states:StartExecution grant and the state machine; the next run is started on schedule.',
      metric: this.group.metricDropped({ period: Duration.hours(1), statistic: cloudwatch.Stats.SUM }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.alarms = { dropped };
    if (props.alarmTopic) {
      const action = new cwActions.SnsAction(props.alarmTopic);
      dropped.addAlarmAction(action);
      dropped.addOkAction(action);
    }
  }
}
