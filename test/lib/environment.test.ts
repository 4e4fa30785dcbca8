import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CfnResource, Stack, TagManager } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type PlatformApp } from '../../lib/app.js';
import { cdkJsonContext, SKIP_BUNDLING } from './support/cdk-app.js';

/*
 * Day-2 properties of a whole environment, over everything the app synthesizes (not a list of
 * today's resources): termination protection, tags, isolation of two environments in one region.
 */

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cdk-environment-test-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

type Template = { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };

type Synthesized = PlatformApp & { templates: Map<string, Template> };

function synth(context: Record<string, unknown>, configFile?: string): Synthesized {
  const platform = buildApp({
    context: { ...cdkJsonContext(), ...SKIP_BUNDLING, ...context },
    nag: false,
    outdir: tempDir(),
    configFile,
  });
  const assembly = platform.app.synth();
  const templates = new Map<string, Template>();
  for (const stack of assembly.stacks) templates.set(stack.stackName, stack.template as Template);
  return { ...platform, templates };
}

function stacksOf(platform: PlatformApp): Stack[] {
  return platform.app.node.children.filter(Stack.isStack);
}

/** Every CloudFormation resource of the app that takes tags, with its stack. */
type TaggableResource = { stack: Stack; logicalId: string; tags: TagManager };

function taggableResources(platform: PlatformApp): TaggableResource[] {
  const out: TaggableResource[] = [];
  const visit = (c: IConstruct) => {
    const tags = TagManager.isTaggable(c) ? c.tags : TagManager.isTaggableV2(c) ? c.cdkTagManager : undefined;
    if (tags) {
      const stack = Stack.of(c);
      out.push({ stack, logicalId: stack.resolve((c as CfnResource).logicalId) as string, tags });
    }
    c.node.children.forEach(visit);
  };
  visit(platform.app);
  return out;
}

/** The tags of a rendered resource, whatever their shape (list of Key/Value, or map). */
function renderedTags(properties: Record<string, unknown> | undefined, tagProperty: string): Record<string, unknown> {
  const raw = properties?.[tagProperty] ?? properties?.[tagProperty.charAt(0).toUpperCase() + tagProperty.slice(1)];
  if (Array.isArray(raw)) return Object.fromEntries(raw.map((t: { Key: string; Value: unknown }) => [t.Key, t.Value]));
  return (raw ?? {}) as Record<string, unknown>;
}

describe('one environment (defaults, plus tags and a partial override as an operator writes them)', () => {
  let platform: Synthesized;
  beforeAll(() => {
    // cdk.json holds the environment's config; the command line changes one value of it.
    const dir = tempDir();
    const configFile = join(dir, 'cdk.json');
    writeFileSync(
      configFile,
      JSON.stringify({ context: { platform: { alarms: { email: 'ops@example-company.net' }, environment: { tags: { CostCenter: 'cc-42' } } } } }),
    );
    platform = synth({ platform: JSON.stringify({ alarms: { apiLatencyP99ThresholdMs: 800 } }) }, configFile);
  }, 240_000);

  it('merges -c platform=... over the file, key by key: the e-mail and tags of the file stay', () => {
    expect(platform.config.alarms).toEqual({ email: 'ops@example-company.net', apiLatencyP99ThresholdMs: 800 });
    expect(platform.config.environment.tags).toEqual({ CostCenter: 'cc-42' });
    const api = platform.templates.get('MessagesPlatform-Api');
    const latency = Object.values(api?.Resources ?? {}).find(
      (r) => r.Type === 'AWS::CloudWatch::Alarm' && String(r.Properties?.AlarmDescription ?? '').includes('p99'),
    );
    expect(latency?.Properties?.Threshold).toBe(800);
  });

  it('protects every stack against deletion', () => {
    const stacks = stacksOf(platform);
    expect(stacks.length).toBeGreaterThanOrEqual(9);
    expect(stacks.filter((s) => !s.terminationProtection).map((s) => s.stackName)).toEqual([]);
    const artifacts = platform.app.synth().stacks;
    expect(artifacts.filter((a) => !a.terminationProtection).map((a) => a.stackName)).toEqual([]);
  });

  it('tags every stack with Environment, Application and the operator\'s tags', () => {
    const expected = { Environment: 'MessagesPlatform', Application: 'MessagesPlatform', CostCenter: 'cc-42' };
    for (const artifact of platform.app.synth().stacks) expect(artifact.tags, artifact.stackName).toEqual(expected);
  });

  it('tags every resource that takes tags, in every template', () => {
    const resources = taggableResources(platform);
    expect(resources.length).toBeGreaterThan(50);
    const untagged: string[] = [];
    for (const { stack, logicalId, tags: manager } of resources) {
      const rendered = platform.templates.get(stack.stackName)?.Resources[logicalId];
      if (!rendered) continue; // removed from the template (e.g. overridden away)
      const tags = renderedTags(rendered.Properties, manager.tagPropertyName);
      if (tags.Environment !== 'MessagesPlatform' || tags.Application !== 'MessagesPlatform' || tags.CostCenter !== 'cc-42') {
        untagged.push(`${stack.stackName}/${logicalId} (${rendered.Type})`);
      }
    }
    expect(untagged).toEqual([]);
  });
});

describe('everything observable: log retention, WAF logs, the edge', () => {
  let platform: Synthesized;
  beforeAll(() => {
    platform = synth({});
  }, 240_000);
  const resources = (type: string) =>
    [...platform.templates.entries()].flatMap(([stack, t]) =>
      Object.entries(t.Resources).filter(([, r]) => r.Type === type).map(([id, r]) => ({ stack, id, ...r })),
    );

  it('gives every log group of every template a retention', () => {
    const groups = resources('AWS::Logs::LogGroup');
    expect(groups.length).toBeGreaterThan(10);
    expect(groups.filter((g) => g.Properties?.RetentionInDays === undefined).map((g) => `${g.stack}/${g.id}`)).toEqual([]);
  });

  it('creates the execution-log group of every REST stage that logs, before API Gateway does (with retention)', () => {
    const stages = resources('AWS::ApiGateway::Stage').filter((s) =>
      JSON.stringify(s.Properties?.MethodSettings ?? []).includes('LoggingLevel'),
    );
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) {
      const restApi = (stage.Properties?.RestApiId as { Ref: string }).Ref;
      const group = resources('AWS::Logs::LogGroup').find(
        (g) => g.stack === stage.stack && JSON.stringify(g.Properties?.LogGroupName ?? '').includes('API-Gateway-Execution-Logs_') &&
          JSON.stringify(g.Properties?.LogGroupName).includes(restApi),
      );
      expect(group, `${stage.stack}/${stage.id}`).toBeDefined();
      expect(group?.Properties?.RetentionInDays).toBeGreaterThan(0);
    }
  });

  it('logs every web ACL to a log group whose name WAF accepts (aws-waf-logs-...), without the Authorization header', () => {
    const acls = resources('AWS::WAFv2::WebACL');
    expect(acls.length).toBeGreaterThanOrEqual(1);
    const logging = resources('AWS::WAFv2::LoggingConfiguration');
    for (const acl of acls) {
      const config = logging.find((l) => JSON.stringify(l.Properties?.ResourceArn).includes(acl.id));
      expect(config, `${acl.stack}/${acl.id}`).toBeDefined();
      expect(JSON.stringify(config?.Properties?.LogDestinationConfigs)).toContain(':log-group:aws-waf-logs-');
      expect(JSON.stringify(config?.Properties?.RedactedFields)).toContain('authorization');
    }
  });

  it('delivers the customer sites\' access logs (standard logging v2) to a retained log group in us-east-1', () => {
    const stack = platform.edgeObservabilityStack;
    expect(stack.region).toBe('us-east-1');
    const template = platform.templates.get(stack.stackName);
    const all = Object.entries(template?.Resources ?? {});
    const source = all.find(([, r]) => r.Type === 'AWS::Logs::DeliverySource')?.[1];
    expect(source?.Properties?.LogType).toBe('ACCESS_LOGS');
    expect(JSON.stringify(source?.Properties?.ResourceArn)).toContain(':distribution/');
    expect(all.some(([, r]) => r.Type === 'AWS::Logs::Delivery')).toBe(true);
    const destination = all.find(([, r]) => r.Type === 'AWS::Logs::DeliveryDestination')?.[1];
    const groupId = all.find(([, r]) => r.Type === 'AWS::Logs::LogGroup')?.[0] ?? '';
    expect(JSON.stringify(destination?.Properties?.DestinationResourceArn)).toContain(groupId);
    expect((template?.Resources[groupId] as { DeletionPolicy?: string }).DeletionPolicy).toBe('Retain');
  });

  it('alarms on the edge\'s 5xx rate and origin errors, notifying the environment\'s topic, and shows the edge on the ops dashboard', () => {
    const template = platform.templates.get(platform.edgeObservabilityStack.stackName);
    const alarms = Object.values(template?.Resources ?? {}).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    const byMetric = (name: string) => alarms.find((a) => a.Properties?.MetricName === name);
    for (const metric of ['5xxErrorRate', 'EdgeOriginErrors']) {
      const alarm = byMetric(metric);
      expect(alarm, metric).toBeDefined();
      expect((alarm?.Properties?.AlarmActions as unknown[]).length, metric).toBe(1);
    }
    expect(JSON.stringify(Object.values(template?.Resources ?? {}).find((r) => r.Type === 'AWS::Logs::MetricFilter'))).toContain(
      'OriginConnectError',
    );
    const dashboard = Object.values(platform.templates.get('MessagesPlatform-Api')?.Resources ?? {}).find(
      (r) => r.Type === 'AWS::CloudWatch::Dashboard',
    );
    const body = JSON.stringify(dashboard?.Properties?.DashboardBody);
    expect(body).toContain('5xxErrorRate');
    expect(body).toContain('EdgeOriginErrors');
  });
});

describe('termination protection can be turned off for a throwaway environment', () => {
  it('environment.terminationProtection=false leaves every stack unprotected', () => {
    const platform = buildApp({
      context: { ...cdkJsonContext(), ...SKIP_BUNDLING, stackPrefix: 'Scratch', platform: '{"environment":{"terminationProtection":false}}' },
      nag: false,
      controlTower: false,
    });
    expect(stacksOf(platform).map((s) => s.terminationProtection)).not.toContain(true);
  });
});

/**
 * Names scoped by a parent that is itself per environment, so equal names do not collide: an
 * inline policy's name (per role), a stage's (per REST API), the metric an alarm watches (per
 * namespace and dimensions, which the namespace test covers).
 */
const SCOPED_NAMES = new Set(['AWS::IAM::Policy.PolicyName', 'AWS::ApiGateway::Stage.StageName', 'AWS::CloudWatch::Alarm.MetricName']);

/** Physical names a template sets as plain strings (properties named `...Name`), but SCOPED_NAMES. */
function literalNames(templates: Map<string, Template>): Set<string> {
  const names = new Set<string>();
  for (const template of templates.values()) {
    for (const resource of Object.values(template.Resources)) {
      for (const [key, value] of Object.entries(resource.Properties ?? {})) {
        if (SCOPED_NAMES.has(`${resource.Type}.${key}`)) continue;
        if (/Name$/.test(key) && typeof value === 'string') names.add(`${resource.Type}.${key}=${value}`);
      }
    }
  }
  return names;
}

/** Every custom-metric namespace the environment writes (function env) or reads (alarms, dashboards). */
function customNamespaces(templates: Map<string, Template>): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      if ((key === 'Namespace' || key === 'POWERTOOLS_METRICS_NAMESPACE') && !value.startsWith('AWS/')) found.add(value);
      for (const m of value.matchAll(/"namespace":"([^"]+)"|SEARCH\('\{([^,]+),/g)) {
        const ns = m[1] ?? m[2];
        if (ns && !ns.startsWith('AWS/')) found.add(ns);
      }
    } else if (Array.isArray(value)) value.forEach((v) => visit(v));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, k);
  };
  for (const template of templates.values()) visit(template.Resources);
  return found;
}

describe('two environments in one account and region', () => {
  let production: Synthesized;
  let staging: Synthesized;
  beforeAll(() => {
    production = synth({});
    // As docs/operators/first-deploy.md deploys a second environment: own prefix and domain, and
    // the account's API Gateway logging role left to the first.
    staging = synth({
      stackPrefix: 'Staging',
      platform: JSON.stringify({
        platform: { domain: 'staging.platform.example.com' },
        environment: { apiGatewayAccountRole: false },
      }),
    });
  }, 300_000);

  it('share no physical name', () => {
    const shared = [...literalNames(production.templates)].filter((n) => literalNames(staging.templates).has(n));
    expect(shared).toEqual([]);
  });

  it('write and read custom metrics in their own namespace only (functions, alarms, dashboards)', () => {
    expect([...customNamespaces(production.templates)]).toEqual(['MessagesPlatform']);
    expect([...customNamespaces(staging.templates)]).toEqual(['Staging']);
  });

  it('set the account-wide API Gateway logging role once, in the first environment', () => {
    const accounts = (p: Synthesized) =>
      [...p.templates.values()].flatMap((t) => Object.values(t.Resources).filter((r) => r.Type === 'AWS::ApiGateway::Account'));
    expect(accounts(production)).toHaveLength(1);
    expect(accounts(staging)).toHaveLength(0);
  });
});
