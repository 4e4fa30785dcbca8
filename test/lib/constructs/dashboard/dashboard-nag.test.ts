import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type PlatformApp } from '../../../../lib/app.js';
import {
  cdkJsonContext,
  expectNoUnacknowledgedFindings,
  type PluginReport,
  readNagReports,
  SKIP_BUNDLING,
} from '../../support/cdk-app.js';

/**
 * Every finding the dashboard stacks accept, where (lib/constructs/dashboard). The same entries, with
 * the app's stack names, are in the list test/lib/app.test.ts pins for the whole app.
 */
function expectedDashboardAcknowledgements(prefix: string, region: string): string[] {
  const dashboard = `${prefix}-Dashboard/Dashboard`;
  const fnRole = `${dashboard}/ControlFunction/Role`;
  const apigateway = (path: string) => `AwsSolutions-IAM5[Resource::arn:aws:apigateway:${region}::${path}]`;
  const deploymentRole = `${dashboard}/DeploymentRole`;
  const siteObjects = (path: string) =>
    `AwsSolutions-IAM5[Resource::{"Fn::GetStackOutput":{"StackName":"${prefix}-DomainsData","Region":"${region}",` +
    `"OutputName":"PublishOutputFnGetAttProjectsSites5509E0F1Arn9864D556"}}/${path}]`;
  return [
    // The user pool: optional MFA, Essentials rather than Plus.
    `AwsSolutions-COG2 @ ${prefix}-DashboardData/Dashboard/UserPool`,
    `AwsSolutions-COG8 @ ${prefix}-DashboardData/Dashboard/UserPool`,
    // The control function: X-Ray on "*", Node.js 22, run-time API keys, tags, usage-plan keys and
    // deploy objects by pattern (no tenants: removal hands them to the domain flow).
    `AwsSolutions-IAM5[Resource::*] @ ${fnRole}`,
    `AwsSolutions-L1 @ ${dashboard}/ControlFunction/Function`,
    `${apigateway('/apikeys/*')} @ ${fnRole}`,
    `${apigateway('/tags/*')} @ ${fnRole}`,
    `${apigateway('/usageplans/*/keys')} @ ${fnRole}`,
    `${apigateway('/usageplans/*/keys/*')} @ ${fnRole}`,
    `${siteObjects('projects/*')} @ ${fnRole}`,
    // Deploys: presigned uploads (content), publish copies (deploys), manifests, per project.
    ...['content', 'deploys', 'manifests'].map((part) => `${siteObjects(`projects/*/${part}/*`)} @ ${fnRole}`),
    // The control API: validation in the handler, no WAF.
    `AwsSolutions-APIG2 @ ${dashboard}/ControlApi`,
    `AwsSolutions-APIG3 @ ${dashboard}/ControlApi/DeploymentStage.v1`,
    // The distribution: no geo restriction, no WAF, the cloudfront.net certificate.
    `AwsSolutions-CFR1 @ ${dashboard}/Distribution/Resource`,
    `AwsSolutions-CFR2 @ ${dashboard}/Distribution/Resource`,
    `AwsSolutions-CFR4 @ ${dashboard}/Distribution/Resource`,
    // BucketDeployment's provider function and the grants CDK gives its role.
    `AwsSolutions-L1 @ ${prefix}-Dashboard/Custom::CDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756C512MiB/Resource`,
    ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'].map(
      (action) => `AwsSolutions-IAM5[Action::${action}] @ ${deploymentRole}`,
    ),
    `AwsSolutions-IAM5[Resource::*] @ ${deploymentRole}`,
    `AwsSolutions-IAM5[Resource::<DashboardSiteAB106610.Arn>/*] @ ${deploymentRole}`,
    `AwsSolutions-IAM5[Resource::arn:aws:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-${region}/*] @ ${deploymentRole}`,
  ].sort();
}

describe('the dashboard stacks with cdk-nag (AwsSolutions)', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-dashboard-nag-'));
  let platform: PlatformApp;
  let reports: PluginReport[];
  const ofDashboard = (path: string | undefined) => /^MessagesPlatform-Dashboard(Data)?\//.test(path ?? '');

  beforeAll(() => {
    platform = buildApp({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING }, outdir });
    platform.app.synth();
    reports = readNagReports(outdir);
  });
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('leaves no unacknowledged finding (error or warning)', () => {
    expectNoUnacknowledgedFindings(reports);
  });

  it('acknowledges exactly the reviewed findings, each on its own construct with a reason', () => {
    const suppressed = reports
      .filter((r) => r.pluginName === 'AwsSolutions')
      .flatMap((r) => r.suppressedViolations ?? [])
      .filter((v) => ofDashboard(v.acknowledgedAt));
    const acks = [...new Set(suppressed.map((v) => `${v.ruleName} @ ${v.acknowledgedAt}`))].sort();
    expect(acks).toEqual(expectedDashboardAcknowledgements('MessagesPlatform', platform.config.platform.region));
    for (const v of suppressed) {
      expect(v.acknowledgedId, v.ruleName).toBe(`AwsSolutions::${v.ruleName}`);
      expect(v.reason?.length ?? 0, `${v.ruleName} reason`).toBeGreaterThan(60);
      // Never on the app or a whole stack.
      expect(v.acknowledgedAt?.split('/').length ?? 0, v.ruleName).toBeGreaterThanOrEqual(3);
    }
  });
});
