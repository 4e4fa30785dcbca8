import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DomainDriftSchedule, DRIFT_CHECK_INPUT } from '../../../../lib/constructs/domains/drift-schedule.js';

type Json = ReturnType<Template['toJSON']>;

// The drift check's clock on AWS (EventBridge Scheduler), on a stand-in state machine.
describe('DomainDriftSchedule', () => {
  let stack: Stack;
  let schedule: DomainDriftSchedule;
  let machine: sfn.StateMachine;
  let resources: Json;
  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnResource);

  beforeAll(() => {
    stack = new Stack(new App(), 'Drift', { env: { region: 'eu-west-1' } });
    machine = new sfn.StateMachine(stack, 'Flow', { definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(stack, 'Pass')) });
    schedule = new DomainDriftSchedule(stack, 'DriftSchedule', { stateMachine: machine, intervalMinutes: 15 });
    resources = Template.fromStack(stack).toJSON().Resources;
  });

  it('starts the flow\'s drift branch ({ drift: {} }) at the given rate, in a schedule group of its own that goes with the stack', () => {
    const schedules = Object.values(Template.fromStack(stack).findResources('AWS::Scheduler::Schedule'));
    expect(schedules).toHaveLength(1);
    const properties = schedules[0]?.Properties as Json;
    expect(properties).toMatchObject({
      ScheduleExpression: 'rate(15 minutes)',
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      GroupName: schedule.group.scheduleGroupName,
    });
    expect(properties.Target).toMatchObject({
      Arn: { Ref: idOf(machine) },
      Input: JSON.stringify(DRIFT_CHECK_INPUT),
      // Retried for at most one interval: by then the next run is due.
      RetryPolicy: { MaximumEventAgeInSeconds: 900, MaximumRetryAttempts: 10 },
    });
    expect(DRIFT_CHECK_INPUT).toEqual({ drift: {} });
    expect(resources[idOf(schedule.group)].DeletionPolicy).toBe('Delete');
  });

  it('runs as a role that only Scheduler assumes and that may only start executions of that state machine', () => {
    const properties = Object.values(Template.fromStack(stack).findResources('AWS::Scheduler::Schedule'))[0]?.Properties as Json;
    const roleId = (properties.Target.RoleArn as Json)['Fn::GetAtt'][0] as string;
    const trust = resources[roleId].Properties.AssumeRolePolicyDocument.Statement as Json[];
    expect(trust.map((t) => t.Principal.Service)).toEqual(['scheduler.amazonaws.com']);
    const policies = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy'))
      .filter((p) => (p.Properties.Roles as Json[]).some((r) => r.Ref === roleId));
    expect(policies.flatMap((p) => p.Properties.PolicyDocument.Statement)).toEqual([
      { Effect: 'Allow', Action: 'states:StartExecution', Resource: { Ref: idOf(machine) } },
    ]);
  });

  it('alarms when the schedule could not start a run, even after its retries (InvocationDroppedCount of its group)', () => {
    expect(resources[idOf(schedule.alarms.dropped)].Properties).toMatchObject({
      Namespace: 'AWS/Scheduler',
      MetricName: 'InvocationDroppedCount',
      Dimensions: [{ Name: 'ScheduleGroup', Value: schedule.group.scheduleGroupName }],
      Period: 3600,
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(resources[idOf(schedule.alarms.dropped)].Properties.AlarmActions).toBeUndefined();
  });

  it('bounds the retries\' event age by Scheduler\'s limits (60 s to 24 h), and notifies the alarm topic on alarm and recovery', () => {
    const other = new Stack(new App(), 'Other', { env: { region: 'eu-west-1' } });
    const flow = new sfn.StateMachine(other, 'Flow', { definitionBody: sfn.DefinitionBody.fromChainable(new sfn.Pass(other, 'Pass')) });
    const topic = new sns.Topic(other, 'Alarms', { enforceSSL: true });
    new DomainDriftSchedule(other, 'Daily', { stateMachine: flow, intervalMinutes: 1440, alarmTopic: topic });
    new DomainDriftSchedule(other, 'Minutely', { stateMachine: flow, intervalMinutes: 1, alarmTopic: topic });
    const template = Template.fromStack(other);
    const ages = Object.values(template.findResources('AWS::Scheduler::Schedule'))
      .map((s) => [s.Properties.ScheduleExpression, s.Properties.Target.RetryPolicy.MaximumEventAgeInSeconds]);
    expect(ages.sort()).toEqual([['rate(1 day)', 86_400], ['rate(1 minute)', 60]]);
    const topicRef = { Ref: other.getLogicalId(topic.node.defaultChild as CfnResource) };
    for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties.AlarmActions).toEqual([topicRef]);
      expect(alarm.Properties.OKActions).toEqual([topicRef]);
    }
  });
});
