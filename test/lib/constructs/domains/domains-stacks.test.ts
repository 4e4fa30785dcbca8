import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type Stack, Token } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../lib/config/index.js';
import { applyNag } from '../../../../lib/nag.js';
import { DomainsDataStack, DomainsStack, type EdgeCertificateStack, type EdgeZoneStack } from '../../../../lib/stacks/domains-stack.js';
import { DOMAINS_OUTPUTS } from '../../../../lib/stacks/domains-stack-outputs.js';
import {
  cdkJsonContext,
  edgeStacks,
  expectNoUnacknowledgedFindings,
  type PluginReport,
  readNagReports,
  SKIP_BUNDLING,
} from '../../support/cdk-app.js';

const FIXTURE = 'test/lib/fixtures/flow-handlers.fixture.ts';
const config = loadConfig();
const env = { region: config.platform.region };

/**
 * Every finding the domains stacks accept, where. When these stacks join lib/app.ts, the same
 * entries (with the app's stack names) go into the list test/lib/app.test.ts pins.
 */
function expectedDomainsAcknowledgements(prefix: string): string[] {
  const flow = `${prefix}-Domains/Flow`;
  const distribution = `${prefix}-DomainsData/Edge/Distribution`;
  const tasks = ['VerifyDns', 'RequestCertificate', 'CheckCertificate', 'Activate', 'Diagnose', 'ReleaseTenant', 'CheckDrift'];
  const certificates = 'AwsSolutions-IAM5[Resource::arn:aws:acm:us-east-1:<AWS::AccountId>:certificate/*]';
  const tenants = 'AwsSolutions-IAM5[Resource::arn:aws:cloudfront::<AWS::AccountId>:distribution-tenant/*]';
  return [
    `AwsSolutions-CFR1 @ ${distribution}`,
    `AwsSolutions-CFR2 @ ${distribution}`,
    `AwsSolutions-CFR3 @ ${distribution}`,
    ...tasks.map((t) => `AwsSolutions-IAM5[Resource::*] @ ${flow}/${t}/Role`),
    ...tasks.map((t) => `AwsSolutions-L1 @ ${flow}/${t}/Function`),
    `AwsSolutions-IAM5[Resource::*] @ ${flow}/TenantCreationPolicy`,
    `AwsSolutions-IAM5[Resource::*] @ ${flow}/StateMachine/Role`,
    // Run-time tenants and their managed certificates, by ARN pattern, in the three tasks that touch them.
    ...['RequestCertificate', 'CheckCertificate', 'ReleaseTenant'].flatMap((t) => [
      `${tenants} @ ${flow}/${t}/Role`,
      `${certificates} @ ${flow}/${t}/Role`,
    ]),
  ].sort();
}

describe('the domains stacks (EdgeZone and EdgeCertificate in us-east-1, DomainsData, Domains) with cdk-nag', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-domains-test-'));
  let zoneStack: EdgeZoneStack;
  let certStack: EdgeCertificateStack;
  let dataStack: DomainsDataStack;
  let flowStack: DomainsStack;
  let reports: PluginReport[];

  beforeAll(() => {
    const app = new App({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING }, outdir });
    ({ zoneStack, certStack } = edgeStacks(app, 'Test', config));
    dataStack = new DomainsDataStack(app, 'Test-DomainsData', { config, env, edgeZone: certStack.edgeZone });
    flowStack = new DomainsStack(app, 'Test-Domains', { config, env, data: dataStack, flowTasksEntry: FIXTURE });
    applyNag(app);
    app.synth();
    reports = readNagReports(outdir);
  });
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('puts the zone and certificate stacks in us-east-1 and the others in the platform region, account-agnostic, in order', () => {
    expect([zoneStack.region, certStack.region]).toEqual(['us-east-1', 'us-east-1']);
    expect([dataStack.region, flowStack.region]).toEqual([config.platform.region, config.platform.region]);
    for (const s of [zoneStack, certStack, dataStack, flowStack]) expect(Token.isUnresolved(s.account)).toBe(true);
    // The zone is complete (its name servers readable) before anything waits for its delegation.
    expect(certStack.dependencies).toContain(zoneStack);
    expect(dataStack.dependencies).toContain(certStack);
    expect(flowStack.dependencies).toContain(dataStack);
  });

  it('leaves no unacknowledged cdk-nag finding', () => {
    expectNoUnacknowledgedFindings(reports);
  });

  it('acknowledges exactly the reviewed findings, each on its own construct with a reason', () => {
    const suppressed = reports.flatMap((r) => r.suppressedViolations ?? []);
    const acks = [...new Set(suppressed.map((v) => `${v.ruleName} @ ${v.acknowledgedAt}`))].sort();
    expect(acks).toEqual(expectedDomainsAcknowledgements('Test'));
    for (const v of suppressed) {
      expect(v.acknowledgedId, v.ruleName).toBe(`AwsSolutions::${v.ruleName}`);
      expect(v.reason?.length ?? 0, `${v.ruleName} reason`).toBeGreaterThan(60);
      expect(v.acknowledgedAt?.split('/').length ?? 0, v.ruleName).toBeGreaterThanOrEqual(3);
    }
  });

  it('has the outputs under fixed logical ids, each in the stack that owns the resource', () => {
    const outputsOf = (s: Stack) => Object.keys(Template.fromStack(s).toJSON().Outputs).filter((o) => !o.startsWith('PublishOutput'));
    expect(outputsOf(zoneStack).sort()).toEqual(Object.values(DOMAINS_OUTPUTS.edgeZone).sort());
    expect(outputsOf(certStack).sort()).toEqual(Object.values(DOMAINS_OUTPUTS.edgeCertificate).sort());
    expect(outputsOf(dataStack).sort()).toEqual(Object.values(DOMAINS_OUTPUTS.domainsData).sort());
    expect(outputsOf(flowStack)).toEqual(Object.values(DOMAINS_OUTPUTS.domains));
    const data = Template.fromStack(dataStack).toJSON().Outputs;
    expect(data.PlatformHost.Value).toBe(`edge.${config.platform.domain}`);
    expect(Template.fromStack(flowStack).toJSON().Outputs.StateMachineArn.Value).toEqual({
      Ref: flowStack.getLogicalId(flowStack.flow.stateMachine.node.defaultChild as never),
    });
    expect(Template.fromStack(zoneStack).toJSON().Outputs.HostedZoneNameServers.Value).toEqual({
      'Fn::Join': [',', { 'Fn::GetAtt': [zoneStack.getLogicalId(zoneStack.platformZone.zone.node.defaultChild as never), 'NameServers'] }],
    });
  });
});
