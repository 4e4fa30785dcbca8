import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stack, Token } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type PlatformApp } from '../../lib/app.js';
import { backstopFor } from '../../lib/config/index.js';
import {
  cdkJsonContext,
  expectNoUnacknowledgedFindings,
  type PluginReport,
  readNagReports,
  SKIP_BUNDLING,
} from './support/cdk-app.js';

const tempDirs: string[] = [];
function tempOutdir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cdk-app-test-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** Every finding the design accepts, where it is acknowledged. Adding one must be a reviewed change. */
const API = 'MessagesPlatform-Api/Messages';
const FUNCTIONS = ['Authorizer', 'SendMessage', 'GetMessage', 'Fallback', 'Worker'];
const DISTRIBUTION = 'MessagesPlatform-DomainsData/Edge/Distribution';
const FLOW = 'MessagesPlatform-Domains/Flow';
const FLOW_TASKS = ['VerifyDns', 'RequestCertificate', 'CheckCertificate', 'Activate', 'Diagnose', 'ReleaseTenant', 'CheckDrift'];
const CERTIFICATES = 'AwsSolutions-IAM5[Resource::arn:aws:acm:us-east-1:<AWS::AccountId>:certificate/*]';
const TENANTS = 'AwsSolutions-IAM5[Resource::arn:aws:cloudfront::<AWS::AccountId>:distribution-tenant/*]';
const DASHBOARD_DATA = 'MessagesPlatform-DashboardData/Dashboard';
const DASHBOARD = 'MessagesPlatform-Dashboard/Dashboard';
const CONTROL_ROLE = `${DASHBOARD}/ControlFunction/Role`;
const expectedAcknowledgements = (region: string) => {
  const apigateway = (path: string) => `AwsSolutions-IAM5[Resource::arn:aws:apigateway:${region}::${path}]`;
  return [
    ...FUNCTIONS.map((f) => `AwsSolutions-IAM5[Resource::*] @ ${API}/${f}/Role`),
    ...FUNCTIONS.map((f) => `AwsSolutions-L1 @ ${API}/${f}/Function`),
    // The webhook delivery function (lib/constructs/webhooks): X-Ray on "*", Node.js 22.
    'AwsSolutions-IAM5[Resource::*] @ MessagesPlatform-Api/Webhooks/Delivery/Role',
    'AwsSolutions-L1 @ MessagesPlatform-Api/Webhooks/Delivery/Function',
    `AwsSolutions-APIG2 @ ${API}/RestApi`,
    `AwsSolutions-COG4 @ ${API}/RestApi`,
    `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs] @ ${API}/RestApi/CloudWatchRole`,
    // The operator (account service) manages internal API keys and Enterprise usage plans, created at run time.
    `${apigateway('/apikeys/*')} @ ${API}/OperatorPolicy`,
    `${apigateway('/usageplans/*')} @ ${API}/OperatorPolicy`,
    `${apigateway('/tags/*')} @ ${API}/OperatorPolicy`,
    // Projects and custom domains (lib/constructs/domains/edge.ts, domain-flow.ts): no geo
    // restriction, no WAF and no CloudFront access logs on the sites' distribution; X-Ray and log
    // delivery on "*"; tenant creation and ACM requests on "*" (no resource types); run-time
    // tenants and their managed certificates by ARN pattern.
    `AwsSolutions-CFR1 @ ${DISTRIBUTION}`,
    `AwsSolutions-CFR2 @ ${DISTRIBUTION}`,
    `AwsSolutions-CFR3 @ ${DISTRIBUTION}`,
    ...FLOW_TASKS.map((t) => `AwsSolutions-IAM5[Resource::*] @ ${FLOW}/${t}/Role`),
    ...FLOW_TASKS.map((t) => `AwsSolutions-L1 @ ${FLOW}/${t}/Function`),
    `AwsSolutions-IAM5[Resource::*] @ ${FLOW}/TenantCreationPolicy`,
    `AwsSolutions-IAM5[Resource::*] @ ${FLOW}/StateMachine/Role`,
    ...['RequestCertificate', 'CheckCertificate', 'ReleaseTenant'].flatMap((t) => [`${TENANTS} @ ${FLOW}/${t}/Role`, `${CERTIFICATES} @ ${FLOW}/${t}/Role`]),
    // The owners' dashboard (lib/constructs/dashboard, as test/lib/constructs/dashboard/dashboard-nag.test.ts
    // pins them): optional MFA and the Essentials plan of the user pool; the control function's
    // X-Ray, Node.js 22 and run-time resources (API keys, tags, usage-plan keys, deploy objects); validation in the handler and no WAF on the control API; no geo restriction, no WAF
    // and the cloudfront.net certificate on the dashboard's distribution; BucketDeployment's
    // provider function and the grants CDK gives its role.
    `AwsSolutions-COG2 @ ${DASHBOARD_DATA}/UserPool`,
    `AwsSolutions-COG8 @ ${DASHBOARD_DATA}/UserPool`,
    `AwsSolutions-IAM5[Resource::*] @ ${CONTROL_ROLE}`,
    `AwsSolutions-L1 @ ${DASHBOARD}/ControlFunction/Function`,
    `${apigateway('/apikeys/*')} @ ${CONTROL_ROLE}`,
    `${apigateway('/tags/*')} @ ${CONTROL_ROLE}`,
    `${apigateway('/usageplans/*/keys')} @ ${CONTROL_ROLE}`,
    `${apigateway('/usageplans/*/keys/*')} @ ${CONTROL_ROLE}`,
    // The site bucket's objects: reads and deletes under projects/, and the deploys' three write prefixes.
    ...['projects/*', 'projects/*/content/*', 'projects/*/deploys/*', 'projects/*/manifests/*'].map(
      (path) =>
        `AwsSolutions-IAM5[Resource::{"Fn::GetStackOutput":{"StackName":"MessagesPlatform-DomainsData","Region":"${region}",` +
        `"OutputName":"PublishOutputFnGetAttProjectsSites5509E0F1Arn9864D556"}}/${path}] @ ${CONTROL_ROLE}`,
    ),
    `AwsSolutions-APIG2 @ ${DASHBOARD}/ControlApi`,
    `AwsSolutions-APIG3 @ ${DASHBOARD}/ControlApi/DeploymentStage.v1`,
    `AwsSolutions-CFR1 @ ${DASHBOARD}/Distribution/Resource`,
    `AwsSolutions-CFR2 @ ${DASHBOARD}/Distribution/Resource`,
    `AwsSolutions-CFR4 @ ${DASHBOARD}/Distribution/Resource`,
    'AwsSolutions-L1 @ MessagesPlatform-Dashboard/Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C512MiB/Resource',
    ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'].map(
      (action) => `AwsSolutions-IAM5[Action::${action}] @ ${DASHBOARD}/DeploymentRole`,
    ),
    `AwsSolutions-IAM5[Resource::*] @ ${DASHBOARD}/DeploymentRole`,
    `AwsSolutions-IAM5[Resource::<DashboardSiteAB106610.Arn>/*] @ ${DASHBOARD}/DeploymentRole`,
    `AwsSolutions-IAM5[Resource::arn:aws:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-${region}/*] @ ${DASHBOARD}/DeploymentRole`,
  ].sort();
};

describe('the CDK app, synthesized as `cdk synth` does (cdk.json context, real bundles, cdk-nag)', () => {
  let platform: PlatformApp;
  let reports: PluginReport[];

  let outdir: string;

  beforeAll(() => {
    outdir = tempOutdir();
    platform = buildApp({ context: cdkJsonContext(), outdir });
    // Throws ValidationFailed when cdk-nag reports an unacknowledged error, or (strict mode, cdk.json) warning.
    platform.app.synth();
    reports = readNagReports(outdir);
  });

  it('has the operations, data, API, domains and dashboard stacks, named from the prefix, in the configured region, account-agnostic', () => {
    expect(platform.app.node.children.filter(Stack.isStack).map((s) => s.stackName)).toEqual([
      'MessagesPlatform-Operations',
      'MessagesPlatform-Data',
      'MessagesPlatform-Api',
      'MessagesPlatform-EdgeZone',
      'MessagesPlatform-EdgeCertificate',
      'MessagesPlatform-DomainsData',
      'MessagesPlatform-Domains',
      'MessagesPlatform-EdgeObservability',
      'MessagesPlatform-DashboardData',
      'MessagesPlatform-Dashboard',
    ]);
    for (const stack of [
      platform.operationsStack,
      platform.dataStack,
      platform.apiStack,
      platform.domainsDataStack,
      platform.domainsStack,
      platform.dashboardDataStack,
      platform.dashboardStack,
    ]) {
      expect(stack.region).toBe(platform.config.platform.region);
      expect(Token.isUnresolved(stack.account)).toBe(true);
    }
    // CloudFront takes its viewer certificate from ACM in us-east-1 only; the zone goes beside it.
    expect(platform.edgeZoneStack?.region).toBe('us-east-1');
    expect(platform.edgeCertificateStack.region).toBe('us-east-1');
    expect(Token.isUnresolved(platform.edgeCertificateStack.account)).toBe(true);
    expect(platform.edgeCertificateStack.dependencies).toContain(platform.edgeZoneStack);
    expect(platform.apiStack.dependencies).toContain(platform.dataStack);
    expect(platform.domainsDataStack.dependencies).toContain(platform.edgeCertificateStack);
    expect(platform.domainsStack.dependencies).toContain(platform.domainsDataStack);
    // Every stack with alarms notifies the operations stack's topic.
    for (const stack of [platform.apiStack, platform.domainsStack, platform.dashboardStack]) {
      expect(stack.dependencies).toContain(platform.operationsStack);
    }
    // The stateless dashboard reads every other stack; nothing reads it.
    const { dataStack, apiStack, domainsDataStack, domainsStack, dashboardDataStack } = platform;
    for (const other of [dataStack, apiStack, domainsDataStack, domainsStack, dashboardDataStack]) {
      expect(platform.dashboardStack.dependencies).toContain(other);
    }
  });

  it('runs the AWS Solutions checks and leaves no unacknowledged finding (error or warning)', () => {
    expectNoUnacknowledgedFindings(reports);
  });

  it('acknowledges exactly the reviewed findings, on their own constructs, each with a reason', () => {
    // cdk-nag's; the Control Tower guard's are pinned by test/lib/policy-validation.test.ts.
    const suppressed = reports.filter((r) => r.pluginName === 'AwsSolutions').flatMap((r) => r.suppressedViolations ?? []);
    const acks = [...new Set(suppressed.map((v) => `${v.ruleName} @ ${v.acknowledgedAt}`))].sort();
    expect(acks).toEqual(expectedAcknowledgements(platform.config.platform.region));
    for (const v of suppressed) {
      expect(v.acknowledgedId, v.ruleName).toBe(`AwsSolutions::${v.ruleName}`);
      expect(v.reason?.length ?? 0, `${v.ruleName} reason`).toBeGreaterThan(60);
      // Never on the app or a whole stack.
      expect(v.acknowledgedAt?.split('/').length ?? 0, v.ruleName).toBeGreaterThanOrEqual(3);
    }
  });

  it('builds the dashboard app with Vite at synth and stages it for the deployment, index.html and its assets', () => {
    const deployments = Template.fromStack(platform.dashboardStack).findResources('Custom::CDKBucketDeployment');
    const [appKey] = (Object.values(deployments)[0]?.Properties.SourceObjectKeys ?? []) as string[];
    const appDir = join(outdir, `asset.${(appKey ?? '').replace(/\.zip$/, '')}`);
    const html = readFileSync(join(appDir, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/src="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1] as string);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) expect(readFileSync(join(appDir, script), 'utf8').length, script).toBeGreaterThan(1000);
    // Built output only: no sources (TypeScript) in what is deployed.
    expect(html).not.toContain('src/main.tsx');
  });

  it('fails synth when a finding is not acknowledged', () => {
    const { app, dataStack } = buildApp({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING }, outdir: tempOutdir() });
    new sqs.Queue(dataStack, 'PlainQueue', { encryption: sqs.QueueEncryption.UNENCRYPTED });
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
  });

  it('fails synth on an unacknowledged warning too (strict validation in cdk.json)', () => {
    const { app, dataStack } = buildApp({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING }, outdir: tempOutdir() });
    (dataStack.messages.tables.accounts.node.defaultChild as CfnTable).pointInTimeRecoverySpecification = undefined;
    expect(() => app.synth()).toThrow(/AwsSolutions-DDB3/);
  });
});

describe('context', () => {
  it('takes the stack prefix and platform overrides (object or JSON string, as -c gives it) from context', () => {
    for (const platformContext of [
      { platform: { region: 'eu-central-1' }, plans: { free: { limits: { perMinute: 30, perDay: 500 } } } },
      JSON.stringify({
        platform: { region: 'eu-central-1' },
        plans: { free: { limits: { perMinute: 30, perDay: 500 } } },
      }),
    ]) {
      const { dataStack, apiStack, config } = buildApp({
        context: { ...cdkJsonContext(), ...SKIP_BUNDLING, stackPrefix: 'Staging', platform: platformContext },
        nag: false,
      });
      expect([dataStack.stackName, apiStack.stackName]).toEqual(['Staging-Data', 'Staging-Api']);
      expect(apiStack.region).toBe('eu-central-1');
      expect(config.plans.free.limits).toEqual({ perMinute: 30, perDay: 500 });
      const backstop = backstopFor(config.plans.free.limits, config);
      Template.fromStack(apiStack).hasResourceProperties('AWS::ApiGateway::UsagePlan', {
        UsagePlanName: 'Staging-Api-free',
        Throttle: { RateLimit: backstop.rateLimit, BurstLimit: backstop.burstLimit },
        Quota: { Limit: backstop.quotaPerDay, Period: 'DAY' },
      });
    }
  });

  it('rejects a stack prefix CloudFormation would not accept', () => {
    expect(() => buildApp({ context: { ...SKIP_BUNDLING, stackPrefix: 'my stack' }, nag: false })).toThrow(
      /stackPrefix.*my stack/,
    );
  });
});
