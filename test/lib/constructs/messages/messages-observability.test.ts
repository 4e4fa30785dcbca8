import { Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { createMessagesFunctions } from '../../../../lib/constructs/messages/messages-functions.js';
import { createMessagesAlarms, createOpsDashboard } from '../../../../lib/constructs/messages/messages-observability.js';
import { createMessagesRestApi } from '../../../../lib/constructs/messages/messages-rest-api.js';
import { bareMessagesStack, logicalIdOf } from '../../support/bare-stack.js';

describe('createMessagesAlarms and createOpsDashboard (in a bare stack)', () => {
  const { stack, config, data } = bareMessagesStack();
  const functions = createMessagesFunctions(stack, { config, data });
  const { api } = createMessagesRestApi(stack, { config, functions });
  const topic = new sns.Topic(stack, 'Alarms');
  const observed = { api, functions, data, apiLatencyP99ThresholdMs: 750 };
  const alarms = createMessagesAlarms(stack, { ...observed, alarmTopic: topic });
  const dashboard = createOpsDashboard(stack, { ...observed, alarms });
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, { Properties: Record<string, unknown> }>;

  it('creates the six alarms with their ids in the given scope, each notifying the topic on alarm and on recovery', () => {
    expect(Object.values(alarms).map((a) => a.node.id)).toEqual([
      'DeadLetterQueueAlarm',
      'ServerErrorAlarm',
      'WorkerErrorAlarm',
      'LambdaThrottleAlarm',
      'ApiLatencyAlarm',
      'QueueAgeAlarm',
    ]);
    template.resourceCountIs('AWS::CloudWatch::Alarm', 6);
    for (const alarm of Object.values(alarms)) {
      const props = resources[logicalIdOf(stack, alarm)]?.Properties;
      expect(props?.AlarmActions, alarm.node.id).toEqual([{ Ref: logicalIdOf(stack, topic) }]);
      expect(props?.OKActions, alarm.node.id).toEqual([{ Ref: logicalIdOf(stack, topic) }]);
    }
  });

  it('takes the latency threshold from apiLatencyP99ThresholdMs', () => {
    expect(resources[logicalIdOf(stack, alarms.apiLatency)]?.Properties.Threshold).toBe(750);
  });

  it('sums the throttles of all five functions in one alarm', () => {
    const metrics = resources[logicalIdOf(stack, alarms.throttles)]?.Properties.Metrics as { Expression?: string }[];
    expect(metrics[0]?.Expression).toBe('FILL(t0, 0) + FILL(t1, 0) + FILL(t2, 0) + FILL(t3, 0) + FILL(t4, 0)');
  });

  it('creates one CloudWatch dashboard with the id Dashboard', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    expect(dashboard.node.id).toBe('Dashboard');
    expect(dashboard.node.scope).toBe(stack);
  });
});
