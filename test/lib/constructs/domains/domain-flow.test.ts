import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DOMAIN_FLOW_DEFAULTS,
  DOMAIN_FLOW_STATES,
  domainFlowDefinition,
} from '../../../../contracts/domain-flow.js';
import {
  DOMAIN_FLOW_METRICS,
  DOMAIN_FLOW_SERVICE,
  DomainFlow,
  FLOW_TASKS,
  type FlowTask,
  VERIFICATION_TASKS,
} from '../../../../lib/constructs/domains/domain-flow.js';
import { DOMAIN_ENV, DOMAIN_HANDLERS } from '../../../../contracts/domains.js';
import { DomainsDataStack, DomainsStack } from '../../../../lib/stacks/domains-stack.js';
import { cdkJsonContext, edgeStacks, REPO_ROOT, SKIP_BUNDLING } from '../../support/cdk-app.js';
import { config, domainFlowInItsStack, type DomainFlowInItsStack, env, FIXTURE, type Json, list } from './domain-flow.fixture.js';

// DomainFlow in the Domains stack: its state machine, task functions, schedule and alarms. What the
// tasks' roles may do is in flow-permissions.test.ts.

describe('DomainFlow (in the Domains stack)', () => {
  let dataStack: DomainsDataStack;
  let stack: DomainsStack;
  let flow: DomainFlow;
  let template: Template;
  let resources: Json;
  let idIn: DomainFlowInItsStack['idIn'];
  let idOf: DomainFlowInItsStack['idOf'];
  let fnId: DomainFlowInItsStack['fnId'];
  let statementsOfRole: DomainFlowInItsStack['statementsOfRole'];
  let source: DomainFlowInItsStack['source'];
  let arnOf: DomainFlowInItsStack['arnOf'];

  beforeAll(() => {
    ({
      dataStack,
      stack,
      flow,
      template,
      resources,
      idIn,
      idOf,
      fnId,
      statementsOfRole,
      source,
      arnOf,
    } = domainFlowInItsStack());
  });

  describe('state machine', () => {
    it('is a Standard state machine running exactly domainFlowDefinition, with the seven task functions', () => {
      const sm = resources[idOf(flow.stateMachine)].Properties;
      expect(sm.StateMachineType).toBe('STANDARD');
      const [sep, parts] = sm.DefinitionString['Fn::Join'] as [string, Json[]];
      const text = parts
        .map((p) => (typeof p === 'string' ? p : `arn:${(p['Fn::GetAtt'] as string[])[0]}`))
        .join(sep);
      const tasks = Object.fromEntries(FLOW_TASKS.map((t) => [t, `arn:${fnId(t)}`]));
      expect(JSON.parse(text)).toEqual(domainFlowDefinition(tasks as Record<FlowTask, string>));
    });

    it('has the 30-minute watchdog branch: CertificateReady? sends $.certificate.watchdogExpired to Diagnose', () => {
      const text = JSON.stringify(resources[idOf(flow.stateMachine)].Properties.DefinitionString);
      const definition = JSON.parse(
        (JSON.parse(text)['Fn::Join'][1] as Json[]).map((p) => (typeof p === 'string' ? p : 'arn:x')).join(''),
      );
      const S = DOMAIN_FLOW_STATES;
      expect(definition.States[S.certificateReady].Choices).toContainEqual({
        Variable: '$.certificate.watchdogExpired',
        BooleanEquals: true,
        Next: S.diagnose,
      });
      expect(definition.States[S.certificateReady].Default).toBe(S.waitForCertificate);
      expect(definition.States[S.waitForCertificate]).toEqual({ Type: 'Wait', SecondsPath: '$.pollSeconds', Next: S.checkCertificate });
    });

    it('logs ALL (with execution data) to its own log group and traces with X-Ray', () => {
      const sm = resources[idOf(flow.stateMachine)].Properties;
      expect(sm.TracingConfiguration).toEqual({ Enabled: true });
      expect(sm.LoggingConfiguration).toEqual({
        Level: 'ALL',
        IncludeExecutionData: true,
        Destinations: [{ CloudWatchLogsLogGroup: { LogGroupArn: { 'Fn::GetAtt': [idOf(flow.executionLog), 'Arn'] } } }],
      });
    });

    it('names its RETAINed execution log under the vended-logs prefix, unique per stack creation (the stack id\'s UUID)', () => {
      const log = resources[idOf(flow.executionLog)];
      expect(log.DeletionPolicy).toBe('Retain');
      expect(log.Properties.LogGroupName).toEqual({
        'Fn::Join': [
          '',
          [
            `/aws/vendedlogs/states/${stack.stackName}-domain-flow-`,
            { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] },
          ],
        ],
      });
      // The only named resource of the construct: functions, roles, alarms and the state machine get generated names.
      const named = Object.entries(resources)
        .filter(([, r]) => ['LogGroupName', 'FunctionName', 'RoleName', 'StateMachineName', 'AlarmName'].some((k) => k in (r.Properties ?? {})))
        .map(([id]) => id);
      expect(named).toEqual([idOf(flow.executionLog)]);
    });

    it('may invoke exactly the seven task functions', () => {
      const invokes = statementsOfRole(idOf(flow.stateMachine.role)).filter((s) => list(s.Action).includes('lambda:InvokeFunction'));
      expect(invokes).toHaveLength(1);
      expect(list(invokes[0]?.Action)).toEqual(['lambda:InvokeFunction']);
      const targets = list(invokes[0]?.Resource) as Json[];
      expect(targets.map((r) => r['Fn::GetAtt'][1])).toEqual(Array(7).fill('Arn'));
      expect(targets.map((r) => r['Fn::GetAtt'][0]).sort()).toEqual(FLOW_TASKS.map(fnId).sort());
    });
  });

  describe('task functions', () => {
    it('are seven house functions (Node.js 22, arm64, X-Ray) exporting the contract\'s handler names', () => {
      const fns = Object.values(template.findResources('AWS::Lambda::Function'));
      expect(fns).toHaveLength(7);
      for (const fn of fns) {
        expect(fn.Properties.Runtime).toBe('nodejs22.x');
        expect(fn.Properties.Architectures).toEqual(['arm64']);
        expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      }
      for (const task of VERIFICATION_TASKS) {
        expect(resources[fnId(task)].Properties.Handler).toBe(`index.${DOMAIN_HANDLERS.flowTasks.handlers[task]}`);
      }
      expect(resources[fnId('releaseTenant')].Properties.Handler).toBe(`index.${DOMAIN_HANDLERS.tenantRelease.handler}`);
      expect(resources[fnId('checkDrift')].Properties.Handler).toBe(`index.${DOMAIN_HANDLERS.driftCheck.handler}`);
      // Reserved for the flow during a flood, except the drift check, which can wait.
      for (const task of FLOW_TASKS) {
        const reserved = resources[fnId(task)].Properties.ReservedConcurrentExecutions;
        expect(reserved, task).toBe(task === 'checkDrift' ? undefined : config.protection.reservedConcurrency.domainFlowTask);
      }
    });

    it('get the runtime contract\'s environment (tables, platform host and domain, KVS, distribution, connection group, watchdog, bucket)', () => {
      for (const task of VERIFICATION_TASKS) {
        const vars = resources[fnId(task)].Properties.Environment.Variables as Json;
        expect(vars.POWERTOOLS_SERVICE_NAME).toBe(DOMAIN_FLOW_SERVICE);
        expect(vars.POWERTOOLS_METRICS_NAMESPACE).toBe(DOMAIN_FLOW_METRICS.namespace);
        expect(vars[DOMAIN_ENV.platformHost]).toBe(`edge.${config.platform.domain}`);
        expect(vars[DOMAIN_ENV.platformDomain]).toBe(config.platform.domain);
        expect(vars[DOMAIN_ENV.watchdogSeconds]).toBe(String(DOMAIN_FLOW_DEFAULTS.watchdogSeconds));
        expect(vars[DOMAIN_ENV.driftGraceSeconds]).toBe(String(7 * 24 * 60 * 60));
        const { tables } = dataStack.projects;
        expect(source(vars[DOMAIN_ENV.projectsTable])).toEqual({ Ref: idIn(dataStack, tables.projects) });
        expect(source(vars[DOMAIN_ENV.domainsTable])).toEqual({ Ref: idIn(dataStack, tables.domains) });
        expect(source(vars[DOMAIN_ENV.keyValueStoreArn])).toEqual(arnOf(dataStack.projects.keyValueStore));
        expect(source(vars[DOMAIN_ENV.distributionId])).toEqual({ Ref: idIn(dataStack, dataStack.edge.distribution) });
        expect(source(vars[DOMAIN_ENV.connectionGroupId])).toEqual({
          'Fn::GetAtt': [idIn(dataStack, dataStack.edge.connectionGroup), 'Id'],
        });
        expect(source(vars[DOMAIN_ENV.siteBucket])).toEqual({ Ref: idIn(dataStack, dataStack.projects.siteBucket) });
        expect(vars[DOMAIN_ENV.accountsTable]).toBeUndefined();
        expect(vars[DOMAIN_ENV.dnsServers]).toBeUndefined();
      }
    });

    it('give the release task only what releasing a tenant needs: the domains table, the KVS, the distribution and connection group', () => {
      const vars = resources[fnId('releaseTenant')].Properties.Environment.Variables as Json;
      const { tables } = dataStack.projects;
      expect(Object.keys(vars).filter((k) => !k.startsWith('POWERTOOLS_') && !k.startsWith('AWS_') && k !== 'NODE_OPTIONS').sort()).toEqual(
        [
          DOMAIN_ENV.domainsTable,
          DOMAIN_ENV.keyValueStoreArn,
          DOMAIN_ENV.distributionId,
          DOMAIN_ENV.connectionGroupId,
        ].sort(),
      );
      expect(source(vars[DOMAIN_ENV.domainsTable])).toEqual({ Ref: idIn(dataStack, tables.domains) });
      expect(source(vars[DOMAIN_ENV.keyValueStoreArn])).toEqual(arnOf(dataStack.projects.keyValueStore));
    });
  });

  it('give the drift task what the drift check needs: the two tables, the KVS, the platform host and domain, the grace period', () => {
    const vars = resources[fnId('checkDrift')].Properties.Environment.Variables as Json;
    expect(Object.keys(vars).filter((k) => !k.startsWith('POWERTOOLS_') && !k.startsWith('AWS_') && k !== 'NODE_OPTIONS').sort()).toEqual(
      [
        DOMAIN_ENV.projectsTable,
        DOMAIN_ENV.domainsTable,
        DOMAIN_ENV.keyValueStoreArn,
        DOMAIN_ENV.platformHost,
        DOMAIN_ENV.platformDomain,
        DOMAIN_ENV.driftGraceSeconds,
      ].sort(),
    );
    expect(vars[DOMAIN_ENV.driftGraceSeconds]).toBe(String(config.domains.driftCheck.gracePeriodDays * 86_400));
    expect(resources[fnId('checkDrift')].Properties.Timeout).toBe(120);
  });

  it('is started by its drift schedule (drift-schedule.test.ts) with the flow\'s drift input, every configured interval', () => {
    const schedules = Object.values(template.findResources('AWS::Scheduler::Schedule')).map((r) => r.Properties);
    expect(schedules.map((p) => [p.ScheduleExpression, p.Target.Arn, p.Target.Input])).toEqual([
      ['rate(1 hour)', { Ref: idOf(flow.stateMachine) }, JSON.stringify({ drift: {} })],
    ]);
  });

  describe('alarms', () => {
    it('alarms on any failed execution: a verification stopped unexpectedly, or a tenant release that kept failing', () => {
      const alarm = resources[idOf(flow.alarms.executionsFailed)].Properties;
      expect(alarm.AlarmDescription).toMatch(/DomainFlowFailed.*TenantReleaseFailed/s);
      expect(alarm).toMatchObject({
        Namespace: 'AWS/States',
        MetricName: 'ExecutionsFailed',
        Dimensions: [{ Name: 'StateMachineArn', Value: { Ref: idOf(flow.stateMachine) } }],
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
    });

    it('alarms when a domain reached certificate_delayed within an hour (the Diagnose task\'s metric)', () => {
      const alarm = resources[idOf(flow.alarms.certificateDelayed)].Properties;
      expect(alarm).toMatchObject({
        Namespace: 'MessagesPlatform',
        MetricName: 'DomainsCertificateDelayed',
        Dimensions: [{ Name: 'service', Value: DOMAIN_FLOW_SERVICE }],
        Period: 3600,
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
      expect(DOMAIN_FLOW_METRICS.certificateDelayed).toBe('DomainsCertificateDelayed');
    });

    it('names DriftCheckFailed in the failed-executions alarm, and includes the schedule\'s alarm among its own', () => {
      expect(resources[idOf(flow.alarms.executionsFailed)].Properties.AlarmDescription).toContain('DriftCheckFailed');
      expect(flow.alarms.driftCheckDropped).toBe(flow.driftSchedule.alarms.dropped);
    });

    it('has no alarm actions without a topic, and notifies a topic on alarm and recovery (all three alarms)', () => {
      for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm'))) {
        expect(alarm.Properties.AlarmActions).toBeUndefined();
      }
      const app = new App({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING } });
      const { certStack } = edgeStacks(app, 'T', config);
      const data = new DomainsDataStack(app, 'T-DomainsData', { config, env, edgeZone: certStack.edgeZone });
      const s = new Stack(app, 'T-Domains', { env });
      const topic = new sns.Topic(s, 'Alarms', { enforceSSL: true });
      new DomainFlow(s, 'Flow', {
        config,
        data: data.projects,
        edge: data.edge,
        flowTasksEntry: FIXTURE,
        alarmTopic: topic,
      });
      const t = Template.fromStack(s);
      const alarms = Object.values(t.findResources('AWS::CloudWatch::Alarm'));
      expect(alarms).toHaveLength(3);
      const topicRef = { Ref: s.getLogicalId(topic.node.defaultChild as CfnResource) };
      for (const alarm of alarms) {
        expect(alarm.Properties.AlarmActions).toEqual([topicRef]);
        expect(alarm.Properties.OKActions).toEqual([topicRef]);
      }
    });
  });

  it('defaults to the real handler modules, which export the five verification task handlers, the release task and the drift task', () => {
    const exports = (entry: string) =>
      [...readFileSync(join(REPO_ROOT, entry), 'utf8').matchAll(/^export const (\w+)\b/gm)].map((m) => m[1]).sort();
    expect(exports(DOMAIN_HANDLERS.flowTasks.entry)).toEqual(Object.values(DOMAIN_HANDLERS.flowTasks.handlers).sort());
    expect(exports(DOMAIN_HANDLERS.tenantRelease.entry)).toEqual([DOMAIN_HANDLERS.tenantRelease.handler]);
    expect(exports(DOMAIN_HANDLERS.driftCheck.entry)).toEqual([DOMAIN_HANDLERS.driftCheck.handler]);
  });

  it('fails synth early when the handler module is missing', () => {
    const app = new App({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING } });
    const { certStack } = edgeStacks(app, 'M', config);
    const data = new DomainsDataStack(app, 'M-DomainsData', { config, env, edgeZone: certStack.edgeZone });
    expect(
      () => new DomainsStack(app, 'M-Domains', { config, env, data, flowTasksEntry: 'lambda/domains/no-such-module.ts' }),
    ).toThrow(/handler entry lambda\/domains\/no-such-module.ts not found/);
  });
});
