import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../lib/app.js';
import { ConfigError, loadConfig } from '../../lib/config/index.js';
import { reservedDomainReason } from '../../lib/config/reserved-domains.js';
import { cdkJsonContext, REPO_ROOT, SKIP_BUNDLING } from './support/cdk-app.js';

// The production issue's "must show" for the whole app: alarms that reach a person, names that
// never collide, flood protection in place, and no deploy of a domain nobody can delegate.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Templates = Record<string, Json>;

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** Every stack's template of the app built from this context (no bundling, no cdk-nag: fast). */
function synthTemplates(context: Record<string, unknown>): Templates {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-production-test-'));
  tempDirs.push(outdir);
  const platform = buildApp({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING, ...context }, outdir, nag: false });
  const assembly = platform.app.synth();
  return Object.fromEntries(assembly.stacks.map((s) => [s.stackName, s.template as Json]));
}

const resourcesOf = (templates: Templates, type: string) =>
  Object.entries(templates).flatMap(([stack, t]) =>
    Object.entries((t.Resources ?? {}) as Json)
      .filter(([, r]) => r.Type === type)
      .map(([id, r]) => ({ stack, id, resource: r as Json })),
  );

/**
 * Names AWS requires to be unique, by resource type and property: per account across regions
 * (CloudFront, CloudWatch dashboards, IAM, S3), or per account and region.
 */
const UNIQUE_NAMES: Readonly<Record<string, { readonly property: string; readonly scope: 'account' | 'region' }>> = {
  'AWS::CloudFront::KeyValueStore': { property: 'Name', scope: 'account' },
  'AWS::CloudFront::ConnectionGroup': { property: 'Name', scope: 'account' },
  'AWS::CloudFront::DistributionTenant': { property: 'Name', scope: 'account' },
  'AWS::CloudFront::Function': { property: 'Name', scope: 'account' },
  'AWS::CloudFront::CachePolicy': { property: 'CachePolicyConfig.Name', scope: 'account' },
  'AWS::CloudFront::ResponseHeadersPolicy': { property: 'ResponseHeadersPolicyConfig.Name', scope: 'account' },
  'AWS::CloudFront::OriginAccessControl': { property: 'OriginAccessControlConfig.Name', scope: 'account' },
  'AWS::CloudWatch::Dashboard': { property: 'DashboardName', scope: 'account' },
  'AWS::IAM::Role': { property: 'RoleName', scope: 'account' },
  'AWS::IAM::ManagedPolicy': { property: 'ManagedPolicyName', scope: 'account' },
  'AWS::S3::Bucket': { property: 'BucketName', scope: 'account' },
  'AWS::Logs::LogGroup': { property: 'LogGroupName', scope: 'region' },
  'AWS::Cognito::UserPoolDomain': { property: 'Domain', scope: 'region' },
  'AWS::DynamoDB::Table': { property: 'TableName', scope: 'region' },
  'AWS::SQS::Queue': { property: 'QueueName', scope: 'region' },
  'AWS::Lambda::Function': { property: 'FunctionName', scope: 'region' },
  'AWS::StepFunctions::StateMachine': { property: 'StateMachineName', scope: 'region' },
  'AWS::SNS::Topic': { property: 'TopicName', scope: 'region' },
  'AWS::WAFv2::WebACL': { property: 'Name', scope: 'region' },
  'AWS::CloudWatch::Alarm': { property: 'AlarmName', scope: 'region' },
};

/** Fixed names of the app, `<type> <stack-relative logical id>` → the name as the template writes it. */
interface FixedName {
  readonly name: string;
  readonly retained: boolean;
  readonly scope: string;
}

function fixedNames(templates: Templates, prefix: string): Map<string, FixedName> {
  const names = new Map<string, FixedName>();
  for (const [type, { property, scope }] of Object.entries(UNIQUE_NAMES)) {
    for (const { stack, id, resource } of resourcesOf(templates, type)) {
      const value = property.split('.').reduce<unknown>((v, p) => (v as Json | undefined)?.[p], resource.Properties);
      if (value === undefined) continue; // CloudFormation generates a unique name
      names.set(`${type} ${stack.replace(prefix, '<prefix>')}/${id}`, {
        name: JSON.stringify(value),
        retained: resource.DeletionPolicy === 'Retain',
        scope,
      });
    }
  }
  return names;
}

const DOMAIN = 'apps.acme-platform.net';

describe('the app as deployed', () => {
  let main: Templates;
  let otherRegion: Templates;
  let otherPrefix: Templates;

  beforeAll(() => {
    main = synthTemplates({ platform: { platform: { domain: DOMAIN } } });
    otherRegion = synthTemplates({ platform: { platform: { domain: `eu.${DOMAIN}`, region: 'eu-central-1' } } });
    otherPrefix = synthTemplates({ stackPrefix: 'Staging', platform: { platform: { domain: `staging.${DOMAIN}` } } });
  });

  it('gives every CloudWatch alarm the environment\'s alarm topic as alarm and OK action', () => {
    const alarms = resourcesOf(main, 'AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThanOrEqual(9);
    // One topic per region of the environment: an alarm notifies a topic of its own region, and the
    // edge's alarms are in us-east-1 with CloudFront's metrics.
    const topic = resourcesOf(main, 'AWS::SNS::Topic');
    expect(topic.map((t) => t.stack).sort()).toEqual(['MessagesPlatform-EdgeObservability', 'MessagesPlatform-Operations']);
    const edgeTopic = topic.find((t) => t.stack === 'MessagesPlatform-EdgeObservability')?.id;
    for (const { stack, id, resource } of alarms) {
      for (const actions of [resource.Properties.AlarmActions, resource.Properties.OKActions]) {
        expect(actions, `${stack}/${id}`).toHaveLength(1);
        // The Operations stack's topic (an output read across stacks), or in us-east-1 the topic beside the alarm.
        const expected = stack === 'MessagesPlatform-EdgeObservability' ? { Ref: edgeTopic } : undefined;
        if (expected) expect(actions[0], `${stack}/${id}`).toEqual(expected);
        else expect(JSON.stringify(actions[0]), `${stack}/${id}`).toContain('MessagesPlatform-Operations');
      }
    }
  });

  it('subscribes the configured e-mail to the alarm topic', () => {
    const withEmail = synthTemplates({ platform: { platform: { domain: DOMAIN }, alarms: { email: 'oncall@acme-platform.net' } } });
    const subs = resourcesOf(withEmail, 'AWS::SNS::Subscription');
    expect(subs.map((s) => [s.stack, s.resource.Properties.Protocol, s.resource.Properties.Endpoint]).sort()).toEqual([
      ['MessagesPlatform-EdgeObservability', 'email', 'oncall@acme-platform.net'],
      ['MessagesPlatform-Operations', 'email', 'oncall@acme-platform.net'],
    ]);
    expect(resourcesOf(main, 'AWS::SNS::Subscription')).toEqual([]);
  });

  it('fixes no unique physical name across regions or prefixes, and retained named resources are unique per creation', () => {
    const a = fixedNames(main, 'MessagesPlatform');
    const region = fixedNames(otherRegion, 'MessagesPlatform');
    const prefix = fixedNames(otherPrefix, 'Staging');
    expect(a.size).toBeGreaterThan(0);
    for (const [key, { name, retained, scope }] of a) {
      // Ends with the stack id's UUID: a new name with every creation, in every region and account.
      if (name.includes('AWS::StackId')) continue;
      // Built from the id of a resource of its own template (e.g. API-Gateway-Execution-Logs_<rest api id>/v1):
      // as unique as that resource, which the same template text cannot show.
      if (/"Ref":"(?!AWS::)[A-Za-z0-9]+"/.test(name)) continue;
      expect(prefix.get(key)?.name, `${key} under another prefix`).not.toBe(name);
      if (scope === 'account') expect(region.get(key)?.name, `${key} in another region`).not.toBe(name);
      // Retained under its name after `cdk destroy`: the next creation must pick another one.
      if (retained) expect(name, `${key} is retained`).toContain('AWS::StackId');
    }
  });

  it('keeps the platform zone, alone in its stack, and otherwise uses the given existing zone', () => {
    const zones = resourcesOf(main, 'AWS::Route53::HostedZone');
    expect(zones.map((z) => [z.stack, z.resource.DeletionPolicy])).toEqual([['MessagesPlatform-EdgeZone', 'Retain']]);
    const existing = synthTemplates({ platform: { platform: { domain: DOMAIN, hostedZone: { id: 'Z0123456789ABCDEFGHIJ', name: 'acme-platform.net' } } } });
    expect(resourcesOf(existing, 'AWS::Route53::HostedZone')).toEqual([]);
    expect(Object.keys(existing)).not.toContain('MessagesPlatform-EdgeZone');
    const records = resourcesOf(existing, 'AWS::Route53::RecordSet').map((r) => [r.resource.Properties.Name, r.resource.Properties.HostedZoneId]);
    expect(records).toEqual([
      [`*.${DOMAIN}.`, 'Z0123456789ABCDEFGHIJ'],
      [`*.edge.${DOMAIN}.`, 'Z0123456789ABCDEFGHIJ'],
    ]);
  });

  it('puts a WAF web ACL with per-IP rate rules on the Messages API stage, and throttles the stage', () => {
    const config = loadConfig();
    const [acl] = resourcesOf(main, 'AWS::WAFv2::WebACL');
    expect(acl?.stack).toBe('MessagesPlatform-Api');
    const rules = acl?.resource.Properties.Rules as Json[];
    expect(rules.map((r) => r.Name)).toEqual([
      'AnonymousPerIp',
      'PerIp',
      'AWSManagedRulesAmazonIpReputationList',
      'AWSManagedRulesKnownBadInputsRuleSet',
    ]);
    const rate = rules.slice(0, 2).map((r) => r.Statement.RateBasedStatement);
    expect(rate.map((r) => [r.Limit, r.AggregateKeyType])).toEqual([
      [config.protection.waf.anonymousPerIpPerMinute, 'IP'],
      [config.protection.waf.perIpPerMinute, 'IP'],
    ]);
    const [association] = resourcesOf(main, 'AWS::WAFv2::WebACLAssociation');
    expect(association?.resource.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [acl?.id, 'Arn'] });
    const restApi = resourcesOf(main, 'AWS::ApiGateway::RestApi').find((r) => r.stack === 'MessagesPlatform-Api');
    const stage = resourcesOf(main, 'AWS::ApiGateway::Stage').find((r) => r.stack === 'MessagesPlatform-Api');
    expect(association?.resource.Properties.ResourceArn).toEqual({
      'Fn::Join': ['', ['arn:aws:apigateway:eu-west-1::/restapis/', { Ref: restApi?.id }, '/stages/', { Ref: stage?.id }]],
    });
    const stages = resourcesOf(main, 'AWS::ApiGateway::Stage').filter((s) => s.stack === 'MessagesPlatform-Api');
    expect(stages[0]?.resource.Properties.MethodSettings).toEqual([
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        ThrottlingRateLimit: config.protection.stageThrottle.rateLimit,
        ThrottlingBurstLimit: config.protection.stageThrottle.burstLimit,
      }),
    ]);
  });

  it('reserves Lambda concurrency for the worker, the domain flow and the control API, within the event source\'s reach', () => {
    const { reservedConcurrency } = loadConfig().protection;
    const reserved = resourcesOf(main, 'AWS::Lambda::Function')
      .filter((f) => f.resource.Properties.ReservedConcurrentExecutions !== undefined)
      .map((f) => [f.stack, f.id.replace(/[0-9A-F]{8}$/, ''), f.resource.Properties.ReservedConcurrentExecutions]);
    expect(reserved).toEqual(
      expect.arrayContaining([
        ['MessagesPlatform-Api', 'MessagesWorkerFunction', reservedConcurrency.worker],
        ['MessagesPlatform-Dashboard', 'DashboardControlFunction', reservedConcurrency.controlApi],
      ]),
    );
    // The drift check is no flow task that must survive a flood: it waits for it to pass (no reservation).
    const flowTasks = resourcesOf(main, 'AWS::Lambda::Function')
      .filter((f) => f.stack === 'MessagesPlatform-Domains' && !f.id.includes('CheckDrift'));
    expect(flowTasks).toHaveLength(6);
    for (const task of flowTasks) {
      expect(task.resource.Properties.ReservedConcurrentExecutions, task.id).toBe(reservedConcurrency.domainFlowTask);
    }
    // Nothing else reserves: the API functions take what is left, the sum stays what docs/operators/deploy.md says (First deploy, step 1).
    expect(reserved).toHaveLength(2 + flowTasks.length);
    const [mapping] = resourcesOf(main, 'AWS::Lambda::EventSourceMapping');
    expect(mapping?.resource.Properties.ScalingConfig).toEqual({ MaximumConcurrency: reservedConcurrency.worker });
  });
});

describe('a deploy of a domain nobody can delegate', () => {
  it.each([
    ['platform.example.com', 'example.com is reserved for documentation (RFC 2606)'],
    ['example.org', 'example.org is reserved for documentation (RFC 2606)'],
    ['apps.test', '.test is a reserved top-level name'],
    ['my.localhost', '.localhost is a reserved top-level name'],
    ['a.b.invalid', '.invalid is a reserved top-level name'],
    ['printer.home.arpa', 'home.arpa is reserved (RFC 8375)'],
  ])('%s is reserved: %s', (domain, reason) => {
    expect(reservedDomainReason(domain)).toContain(reason);
  });

  it.each(['apps.acme-platform.net', 'example.company.io', 'notexample.com', 'test.acme.net'])('%s is deployable', (domain) => {
    expect(reservedDomainReason(domain)).toBeUndefined();
  });

  it('fails buildApp for a deploy with the placeholder, naming the setting; synthOnly and a real domain pass', () => {
    const build = (context: Record<string, unknown>) => () =>
      buildApp({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING, ...context }, nag: false, deployable: true });
    expect(build({})).toThrow(ConfigError);
    expect(build({})).toThrow(/platform\.domain "platform\.example\.com" cannot be deployed: example\.com is reserved/);
    expect(build({})).toThrow(/-c synthOnly=true/);
    expect(build({ synthOnly: 'true' })).not.toThrow();
    expect(build({ platform: { platform: { domain: DOMAIN } } })).not.toThrow();
  });

  it('`cdk synth` with a resolved account (as `cdk deploy` runs it) exits non-zero with the message, offline without one it works', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'cdk-reserved-'));
    tempDirs.push(outdir);
    const result = spawnSync(join(REPO_ROOT, 'node_modules/.bin/cdk'), ['synth', '--quiet', '--no-notices', '-o', outdir, 'MessagesPlatform-Operations'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, CDK_DEFAULT_ACCOUNT: '123456789012', CDK_DISABLE_CLI_TELEMETRY: 'true', CDK_DISABLE_VERSION_CHECK: 'true' },
    });
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.status, output).not.toBe(0);
    expect(output).toContain('platform.domain "platform.example.com" cannot be deployed');
    expect(output).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m);
  });
});
