import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/config/index.js';
import {
  DOMAIN_FLOW_DEFAULTS,
  DOMAIN_FLOW_STATES,
  domainFlowDefinition,
} from '../../../../lib/constructs/domains/domain-flow-definition.js';
import {
  DOMAIN_FLOW_METRICS,
  DOMAIN_FLOW_SERVICE,
  DomainFlow,
  FLOW_TASKS,
  type FlowTask,
  KVS_ACTIONS,
  TENANT_ACTIONS,
} from '../../../../lib/constructs/domains/domain-flow.js';
import { DOMAIN_ENV, DOMAIN_HANDLERS } from '../../../../lib/constructs/domains/runtime-contract.js';
import { DomainsDataStack, DomainsStack } from '../../../../lib/stacks/domains-stack.js';
import { cdkJsonContext, edgeStacks, REPO_ROOT, SKIP_BUNDLING } from '../../support/cdk-app.js';

type Json = ReturnType<Template['toJSON']>;

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Sid?: string;
}

/** Stand-in for lambda/domains/flow-handlers.ts: exports the five task handlers. */
const FIXTURE = 'test/lib/fixtures/flow-handlers.fixture.ts';
const config = loadConfig();
const env = { region: config.platform.region };
const list = <T>(v: T | T[]) => (Array.isArray(v) ? v : [v]);

describe('DomainFlow (in the Domains stack)', () => {
  let dataStack: DomainsDataStack;
  let stack: DomainsStack;
  let flow: DomainFlow;
  let template: Template;
  let resources: Json;
  let dataOutputs: Json;

  const idIn = (s: Stack, construct: { node: { defaultChild?: unknown } }) =>
    s.getLogicalId((construct.node.defaultChild ?? construct) as CfnResource);
  const idOf = (construct: { node: { defaultChild?: unknown } }) => idIn(stack, construct);
  const fnId = (task: FlowTask) => idOf(flow.functions[task].function);
  const statementsOfRole = (roleId: string): Statement[] =>
    Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => (p.Properties.Roles as Json[]).some((r) => r.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
  const statementsOf = (task: FlowTask) => statementsOfRole(idOf(flow.functions[task].role));
  /** A resource as the DomainsData stack defines it: cross-stack references followed to their source. */
  const source = (value: unknown): unknown => {
    const ref = (value as Json)?.['Fn::GetStackOutput'] as { StackName: string; OutputName: string } | undefined;
    if (!ref) return value;
    expect(ref.StackName).toBe(dataStack.stackName);
    return dataOutputs[ref.OutputName].Value;
  };
  const arnOf = (construct: { node: { defaultChild?: unknown } }) => ({ 'Fn::GetAtt': [idIn(dataStack, construct), 'Arn'] });

  beforeAll(() => {
    const app = new App({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING } });
    const { certStack } = edgeStacks(app, 'Test', config);
    dataStack = new DomainsDataStack(app, 'Test-DomainsData', { config, env, edgeZone: certStack.edgeZone });
    stack = new DomainsStack(app, 'Test-Domains', { config, env, data: dataStack, flowTasksEntry: FIXTURE });
    flow = stack.flow;
    app.synth();
    template = Template.fromStack(stack);
    resources = template.toJSON().Resources;
    dataOutputs = Template.fromStack(dataStack).toJSON().Outputs;
  });

  describe('state machine', () => {
    it('is a Standard state machine running exactly domainFlowDefinition, with the five task functions', () => {
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
      expect(resources[idOf(flow.executionLog)].Properties.LogGroupName).toMatch(/^\/aws\/vendedlogs\/states\//);
    });

    it('may invoke exactly the five task functions', () => {
      const invokes = statementsOfRole(idOf(flow.stateMachine.role)).filter((s) => list(s.Action).includes('lambda:InvokeFunction'));
      expect(invokes).toHaveLength(1);
      expect(list(invokes[0]?.Action)).toEqual(['lambda:InvokeFunction']);
      const targets = list(invokes[0]?.Resource) as Json[];
      expect(targets.map((r) => r['Fn::GetAtt'][1])).toEqual(Array(5).fill('Arn'));
      expect(targets.map((r) => r['Fn::GetAtt'][0]).sort()).toEqual(FLOW_TASKS.map(fnId).sort());
    });
  });

  describe('task functions', () => {
    it('are five house functions (Node.js 22, arm64, X-Ray) exporting the contract\'s handler names from one module', () => {
      const fns = Object.values(template.findResources('AWS::Lambda::Function'));
      expect(fns).toHaveLength(5);
      for (const fn of fns) {
        expect(fn.Properties.Runtime).toBe('nodejs22.x');
        expect(fn.Properties.Architectures).toEqual(['arm64']);
        expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      }
      for (const task of FLOW_TASKS) {
        expect(resources[fnId(task)].Properties.Handler).toBe(`index.${DOMAIN_HANDLERS.flowTasks.handlers[task]}`);
      }
    });

    it('get the runtime contract\'s environment (tables, platform host and domain, KVS, distribution, connection group, watchdog, bucket)', () => {
      for (const task of FLOW_TASKS) {
        const vars = resources[fnId(task)].Properties.Environment.Variables as Json;
        expect(vars.POWERTOOLS_SERVICE_NAME).toBe(DOMAIN_FLOW_SERVICE);
        expect(vars.POWERTOOLS_METRICS_NAMESPACE).toBe(DOMAIN_FLOW_METRICS.namespace);
        expect(vars[DOMAIN_ENV.platformHost]).toBe(`edge.${config.platform.domain}`);
        expect(vars[DOMAIN_ENV.platformDomain]).toBe(config.platform.domain);
        expect(vars[DOMAIN_ENV.watchdogSeconds]).toBe(String(DOMAIN_FLOW_DEFAULTS.watchdogSeconds));
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
  });

  describe('least privilege', () => {
    const tenantArns = { 'Fn::Join': ['', ['arn:aws:cloudfront::', { Ref: 'AWS::AccountId' }, ':distribution-tenant/*']] };
    const managedCertificates = { 'Fn::Join': ['', ['arn:aws:acm:us-east-1:', { Ref: 'AWS::AccountId' }, ':certificate/*']] };
    const xray = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

    it('grants no wildcard action, and Resource "*" only to X-Ray and to tenant creation in RequestCertificate', () => {
      for (const task of FLOW_TASKS) {
        for (const s of statementsOf(task)) {
          expect(s.Effect, task).toBe('Allow');
          for (const action of list(s.Action)) expect(action, task).not.toMatch(/\*/);
          if (list(s.Resource).includes('*')) {
            const actions = list(s.Action).sort();
            if (actions.every((a) => a.startsWith('xray:'))) expect(actions, task).toEqual(xray);
            else {
              expect(task).toBe('requestCertificate');
              expect(actions).toEqual(['acm:RequestCertificate', 'cloudfront:CreateDistributionTenant']);
              expect(s.Resource).toBe('*');
            }
          }
        }
      }
    });

    it('allows DynamoDB item actions on the Projects and Domains tables only (no Accounts, no indexes, no scans)', () => {
      const tables = [arnOf(dataStack.projects.tables.projects), arnOf(dataStack.projects.tables.domains)];
      for (const task of FLOW_TASKS) {
        const granted: Record<string, string[]> = {};
        for (const s of statementsOf(task)) {
          const actions = list(s.Action).filter((a) => a.startsWith('dynamodb:'));
          if (actions.length === 0) continue;
          for (const resource of list(s.Resource)) {
            const table = source(resource);
            expect(tables, `${task} ${JSON.stringify(resource)}`).toContainEqual(table);
            const name = JSON.stringify(table) === JSON.stringify(tables[0]) ? 'projects' : 'domains';
            granted[name] = [...(granted[name] ?? []), ...actions].sort();
          }
        }
        expect(granted, task).toEqual({ projects: ['dynamodb:GetItem'], domains: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] });
      }
    });

    it('allows the KeyValueStore data-plane actions to Activate only, on the store\'s ARN only', () => {
      for (const task of FLOW_TASKS) {
        const kvs = statementsOf(task).filter((s) => list(s.Action).some((a) => a.startsWith('cloudfront-keyvaluestore:')));
        if (task !== 'activate') {
          expect(kvs, task).toEqual([]);
          continue;
        }
        expect(kvs).toHaveLength(1);
        expect(list(kvs[0]?.Action).sort()).toEqual([...KVS_ACTIONS].sort());
        expect(list(kvs[0]?.Resource).map(source)).toEqual([arnOf(dataStack.projects.keyValueStore)]);
      }
    });

    it('allows tenant actions on distribution-tenant ARNs only, and ACM reads on us-east-1 certificates only', () => {
      const cloudfrontOf = (task: FlowTask) =>
        statementsOf(task).filter((s) => list(s.Action).some((a) => a.startsWith('cloudfront:') || a.startsWith('acm:')));
      for (const task of ['verifyDns', 'activate', 'diagnose'] as const) expect(cloudfrontOf(task), task).toEqual([]);

      const request = cloudfrontOf('requestCertificate');
      expect(request.filter((s) => s.Resource !== '*')).toEqual([
        { Effect: 'Allow', Action: [...TENANT_ACTIONS.requestCertificate].sort(), Resource: tenantArns },
      ]);
      expect(resources[idOf(flow.tenantCreationPolicy)].Properties.Roles).toEqual([
        { Ref: idOf(flow.functions.requestCertificate.role) },
      ]);

      expect(cloudfrontOf('checkCertificate')).toEqual([
        { Effect: 'Allow', Action: [...TENANT_ACTIONS.checkCertificate].sort(), Resource: tenantArns },
        { Effect: 'Allow', Action: 'acm:DescribeCertificate', Resource: managedCertificates },
      ]);
      // No tenant deletion, no distribution or connection-group changes anywhere in the flow.
      const all = FLOW_TASKS.flatMap((t) => statementsOf(t).flatMap((s) => list(s.Action)));
      expect(all.filter((a) => /Delete|Distribution$|ConnectionGroup|Function/.test(a))).toEqual([]);
    });

    it('grants no Route 53, S3 or CloudWatch actions (metrics go out as EMF in the log)', () => {
      const all = FLOW_TASKS.flatMap((t) => statementsOf(t).flatMap((s) => list(s.Action)));
      expect(all.filter((a) => /^(route53|s3|cloudwatch):/.test(a))).toEqual([]);
    });
  });

  describe('alarms', () => {
    it('alarms on any failed execution', () => {
      const alarm = resources[idOf(flow.alarms.executionsFailed)].Properties;
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

    it('has no alarm actions without a topic, and notifies a topic on alarm and recovery', () => {
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
        dnsServers: ['127.0.0.1:5300'],
      });
      const t = Template.fromStack(s);
      const alarms = Object.values(t.findResources('AWS::CloudWatch::Alarm'));
      expect(alarms).toHaveLength(2);
      const topicRef = { Ref: s.getLogicalId(topic.node.defaultChild as CfnResource) };
      for (const alarm of alarms) {
        expect(alarm.Properties.AlarmActions).toEqual([topicRef]);
        expect(alarm.Properties.OKActions).toEqual([topicRef]);
      }
      for (const fn of Object.values(t.findResources('AWS::Lambda::Function'))) {
        expect(fn.Properties.Environment.Variables[DOMAIN_ENV.dnsServers]).toBe('127.0.0.1:5300');
      }
    });
  });

  it('defaults to the real handler module, which exports the five task handlers', () => {
    const source = readFileSync(join(REPO_ROOT, DOMAIN_HANDLERS.flowTasks.entry), 'utf8');
    const exported = [...source.matchAll(/^export const (\w+)\b/gm)].map((m) => m[1]);
    expect(exported.sort()).toEqual(Object.values(DOMAIN_HANDLERS.flowTasks.handlers).sort());
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
