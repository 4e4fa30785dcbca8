import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PlatformApp } from '../../../../lib/app.js';
import { loadConfig } from '../../../../lib/config/index.js';
import { MessagesApi } from '../../../../lib/constructs/messages/messages-api.js';
import { MessagesData } from '../../../../lib/constructs/messages/messages-data.js';
import { REQUIRED_OUTPUT_KEYS } from '../../../../cli/deployed-stack.js';
import { PLATFORM_CONFIG_OUTPUT } from '../../../../lib/stacks/api-stack-outputs.js';
import { cdkJsonContext, SKIP_BUNDLING } from '../../support/cdk-app.js';
import { apiStackOfTheApp, type ApiStackOfTheApp, type Json } from './messages-api.fixture.js';

// MessagesApi in the app: its alarms, its operations dashboard and its outputs.

describe('MessagesApi (in the ApiStack of the app)', () => {
  let platform: PlatformApp;
  let stack: Stack;
  let api: MessagesApi;
  let template: Template;
  let resources: Record<string, Json>;
  let idOf: ApiStackOfTheApp['idOf'];
  let fnId: ApiStackOfTheApp['fnId'];

  beforeAll(() => {
    ({ platform, stack, api, template, resources, idOf, fnId } = apiStackOfTheApp());
  });

  describe('alarms and outputs', () => {
    it('alarms on any dead-lettered message', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: Match.anyValue() }],
        Statistic: 'Maximum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
      const alarm = resources[idOf(api.alarms.deadLetterQueue)]?.Properties as Json;
      expect(stack.resolve(alarm.Dimensions[0].Value)).toEqual(
        stack.resolve(platform.dataStack.messages.deadLetterQueue.queueName),
      );
    });

    it('alarms on API 5XX errors and on worker errors', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/ApiGateway',
        MetricName: '5XXError',
        Statistic: 'Sum',
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId('worker') } }],
        Threshold: 1,
      });
      // The app gives the Operations stack's topic: every alarm notifies it, on alarm and back to OK.
      const topic = {
        'Fn::GetStackOutput': expect.objectContaining({ StackName: platform.operationsStack.stackName, Region: platform.config.platform.region }),
      };
      for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm'))) {
        expect(alarm.Properties.AlarmActions).toEqual([topic]);
        expect(alarm.Properties.OKActions).toEqual([topic]);
      }
    });

    const alarmProps = (name: keyof MessagesApi['alarms']) => resources[idOf(api.alarms[name])]?.Properties as Json;

    it('alarms when any function of the API is throttled (sum of all five >= 1 in 5 min)', () => {
      const alarm = alarmProps('throttles');
      expect(alarm).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      const queries = alarm.Metrics as Json[];
      const expression = queries.find((q) => q.Expression) as Json;
      expect(expression).toBeDefined();
      expect(expression.ReturnData).not.toBe(false);
      const throttles = queries.filter((q) => q.MetricStat);
      expect(throttles).toHaveLength(5);
      for (const q of throttles) {
        expect(q.MetricStat).toMatchObject({ Metric: { Namespace: 'AWS/Lambda', MetricName: 'Throttles' }, Stat: 'Sum', Period: 300 });
        expect(expression.Expression).toContain(`FILL(${q.Id}, 0)`);
      }
      const throttled = throttles.map((q) => q.MetricStat.Metric.Dimensions[0].Value);
      expect(throttled).toEqual(
        expect.arrayContaining((Object.keys(api.functions) as (keyof MessagesApi['functions'])[]).map((n) => ({ Ref: fnId(n) }))),
      );
    });

    it('alarms when the API p99 latency is above 1000 ms (default) for two 5-minute periods', () => {
      expect(alarmProps('apiLatency')).toMatchObject({
        Namespace: 'AWS/ApiGateway',
        MetricName: 'Latency',
        ExtendedStatistic: 'p99',
        Period: 300,
        Threshold: 1000,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 2,
        DatapointsToAlarm: 2,
      });
    });

    it('alarms when the oldest queued message is 5 minutes old', () => {
      const alarm = alarmProps('queueAge');
      expect(alarm).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Statistic: 'Maximum',
        Threshold: 300,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      expect(stack.resolve(alarm.Dimensions[0].Value)).toEqual(
        stack.resolve(platform.dataStack.messages.queue.queueName),
      );
    });

    it('keeps six alarms, every one in the alarms property', () => {
      expect(Object.keys(api.alarms).sort()).toEqual(
        ['apiLatency', 'deadLetterQueue', 'queueAge', 'serverErrors', 'throttles', 'workerErrors'],
      );
      // Beside them in this stack: the webhooks' delivery DLQ alarm (lib/constructs/webhooks).
      const ids = [...Object.values(api.alarms), platform.apiStack.webhooks.deadLetterAlarm].map((a) => idOf(a));
      expect(Object.keys(template.findResources('AWS::CloudWatch::Alarm')).sort()).toEqual(ids.sort());
    });

    describe('dashboard', () => {
      interface Widget {
        type: string;
        properties: { title?: string; metrics?: unknown[][]; alarms?: unknown[] };
      }
      let dashboard: Json;
      let widgets: Widget[];
      const widget = (title: string) => {
        const w = widgets.find((x) => x.properties.title === title);
        expect(w, title).toBeDefined();
        return w as Widget;
      };
      /** The metrics of a widget as `namespace metricName stat` (or the expression), tokens as `<Ref>`. */
      const metricsOf = (title: string) =>
        (widget(title).properties.metrics ?? []).map((m) => {
          const options = m[m.length - 1] as { stat?: string; expression?: string };
          if (options.expression) return options.expression;
          return `${m[0]} ${m[1]} ${options.stat}`;
        });

      beforeAll(() => {
        const dashboards = template.findResources('AWS::CloudWatch::Dashboard');
        expect(Object.keys(dashboards)).toEqual([idOf(api.opsDashboard)]);
        dashboard = Object.values(dashboards)[0]?.Properties as Json;
        const body = dashboard.DashboardBody as Json;
        const text = (body['Fn::Join'][1] as (string | Json)[])
          .map((p) => (typeof p === 'string' ? p : `<${JSON.stringify(p).replace(/"/g, '\'')}>`))
          .join('');
        widgets = JSON.parse(text).widgets as Widget[];
      });

      it('is named <stackName>-<region>-messages (unique per account) and is a stack output', () => {
        expect(dashboard.DashboardName).toBe(`${stack.stackName}-${stack.region}-messages`);
        const outputs = template.toJSON().Outputs as Json;
        expect(outputs.OpsDashboardName.Value).toEqual({ Ref: idOf(api.opsDashboard) });
      });

      it('shows API requests, 4XX, 5XX and latency p50/p99', () => {
        expect(metricsOf('API requests, 4XX and 5XX')).toEqual([
          'AWS/ApiGateway Count Sum',
          'AWS/ApiGateway 4XXError Sum',
          'AWS/ApiGateway 5XXError Sum',
        ]);
        expect(metricsOf('API latency (p50, p99)')).toEqual(['AWS/ApiGateway Latency p50', 'AWS/ApiGateway Latency p99']);
      });

      it('shows accepted vs rejected by reason (a SEARCH over RequestRejected)', () => {
        const [accepted, rejected] = metricsOf('Accepted vs rejected (by reason)');
        expect(accepted).toBe('MessagesPlatform MessageAccepted Sum');
        expect(rejected).toMatch(/^SEARCH\('\{MessagesPlatform,reason,service\} MetricName="RequestRejected"', 'Sum', 300\)$/);
      });

      it('shows the worker outcomes and the limiter latency', () => {
        expect(metricsOf('Worker: processed, failed, orphans')).toEqual([
          'MessagesPlatform MessageProcessed Sum',
          'MessagesPlatform MessageFailed Sum',
          'MessagesPlatform OrphanDropped Sum',
        ]);
        expect(metricsOf('Limiter latency (p50, p99)')).toEqual([
          'MessagesPlatform LimiterLatency p50',
          'MessagesPlatform LimiterLatency p99',
        ]);
      });

      it('shows queue depth, age of the oldest message and DLQ depth', () => {
        expect(metricsOf('Queue depth and age of oldest message')).toEqual([
          'AWS/SQS ApproximateNumberOfMessagesVisible Maximum',
          'AWS/SQS ApproximateNumberOfMessagesNotVisible Maximum',
          'AWS/SQS ApproximateAgeOfOldestMessage Maximum',
        ]);
        expect(metricsOf('DLQ depth')).toEqual(['AWS/SQS ApproximateNumberOfMessagesVisible Maximum']);
      });

      it('shows errors, throttles, duration and concurrency of every function', () => {
        const five = (line: string) => Array<string>(5).fill(line);
        expect(metricsOf('Lambda errors')).toEqual(five('AWS/Lambda Errors Sum'));
        expect(metricsOf('Lambda throttles')).toEqual(five('AWS/Lambda Throttles Sum'));
        expect(metricsOf('Lambda duration (p99)')).toEqual(five('AWS/Lambda Duration p99'));
        expect(metricsOf('Concurrent executions')).toEqual([
          ...five('AWS/Lambda ConcurrentExecutions Maximum'),
          'AWS/Lambda ConcurrentExecutions Maximum',
        ]);
        for (const title of ['Lambda errors', 'Lambda throttles', 'Lambda duration (p99)']) {
          const text = JSON.stringify(widget(title).properties.metrics);
          for (const name of Object.keys(api.functions) as (keyof MessagesApi['functions'])[]) {
            expect(text, `${title} ${name}`).toContain(fnId(name));
          }
        }
      });

      it('shows the state of every alarm', () => {
        expect(widget('Alarms').properties.alarms).toHaveLength(Object.keys(api.alarms).length);
      });
    });

    it('has every output the operator CLI requires', () => {
      const outputs = template.toJSON().Outputs as Json;
      for (const key of [...REQUIRED_OUTPUT_KEYS, PLATFORM_CONFIG_OUTPUT]) expect(outputs[key], key).toBeDefined();
    });

    it('outputs the API URL, the queue URLs and every table name', () => {
      const outputs = template.toJSON().Outputs as Json;
      for (const name of [
        'ApiUrl',
        'QueueUrl',
        'DeadLetterQueueUrl',
        'ApiKeysTableName',
        'AccountsTableName',
        'RateLimitsTableName',
        'MessagesTableName',
        'IdempotencyTableName',
      ]) {
        expect(outputs[name], name).toBeDefined();
      }
      expect(outputs.ApiUrl.Value).toEqual(stack.resolve(api.api.url));
      expect(JSON.stringify(outputs.ApiUrl.Value)).toContain(`"/",{"Ref":"${idOf(api.stage)}"},"/"`);
      const tables = platform.dataStack.messages.tables;
      expect(outputs.MessagesTableName.Value).toEqual(stack.resolve(tables.messages.tableName));
      expect(outputs.QueueUrl.Value).toEqual(stack.resolve(platform.dataStack.messages.queue.queueUrl));
    });
  });
});

describe('MessagesApi with an alarm topic', () => {
  it('takes the p99 latency threshold of its alarm from config alarms.apiLatencyP99ThresholdMs', () => {
    const app = new App({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING } });
    const stack = new Stack(app, 'Latency', { env: { region: 'eu-west-1' } });
    const config = loadConfig({ alarms: { apiLatencyP99ThresholdMs: 250 } });
    const data = new MessagesData(stack, 'Data', { config });
    new MessagesApi(stack, 'Api', { config, data, manageCloudWatchRole: false });
    Template.fromStack(stack).hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Threshold: 250,
    });
  });

  it('notifies the topic on alarm and on recovery', () => {
    const app = new App({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING } });
    const stack = new Stack(app, 'Alarms', { env: { region: 'eu-west-1' } });
    const config = loadConfig();
    const data = new MessagesData(stack, 'Data', { config });
    const topic = new sns.Topic(stack, 'Topic');
    new MessagesApi(stack, 'Api', { config, data, alarmTopic: topic, manageCloudWatchRole: false });
    const template = Template.fromStack(stack);
    const topicRef = { Ref: stack.getLogicalId(topic.node.defaultChild as CfnResource) };
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(6);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([topicRef]);
      expect(alarm.Properties.OKActions).toEqual([topicRef]);
    }
    // The latency threshold is configurable.
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Latency', Threshold: 1000 });
    // manageCloudWatchRole: false leaves the account-level API Gateway setting alone.
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
  });
});
