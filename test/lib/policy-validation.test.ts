import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { App, Stack } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type PlatformApp } from '../../lib/app.js';
import { CONTROL_TOWER_ACKNOWLEDGEMENTS, DEFERRED_CONTROLS } from '../../lib/policy-validation-acks.js';
import {
  applyControlTower,
  controlTowerRules,
  GUARD_PLUGIN_NAME,
  guardAcknowledgementId,
  resolveAcknowledgementPath,
} from '../../lib/policy-validation.js';
import { cdkJsonContext, type PluginReport, readNagReports, SKIP_BUNDLING, type Violation } from './support/cdk-app.js';

const tempDirs: string[] = [];
function tempOutdir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cdk-guard-test-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

const guardReport = (reports: PluginReport[]) => reports.find((r) => r.pluginName === GUARD_PLUGIN_NAME);
const REASON = 'The queue of this test: it exists to show that an acknowledged finding passes synth.';

/** A one-stack app (`T-Data`) with queues that have no dead-letter queue (CT.SQS.PR.1). */
function queueApp(queues: string[], options: Parameters<typeof applyControlTower>[2]) {
  const outdir = tempOutdir();
  const app = new App({ outdir });
  const stack = new Stack(app, 'T-Data');
  for (const id of queues) new sqs.Queue(stack, id, { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true });
  applyControlTower(app, 'T', options);
  return { app, outdir };
}

describe('the Control Tower guard (cfn-guard) at synth', () => {
  it('fails synth on a finding, naming the control, the construct and the acknowledgement id', () => {
    const { app } = queueApp(['Plain'], { acknowledgements: [], deferred: [] });
    expect(() => app.synth()).toThrow(/\[CT\.SQS\.PR\.1\][\s\S]*T-Data\/Plain\/Resource[\s\S]*cdk-validator-cfnguard::sqs_dlq_check/);
  });

  it('passes an acknowledged finding with its reason, and still fails on the unacknowledged one beside it', () => {
    const acknowledgements = [{ control: 'CT.SQS.PR.1', at: ['Data/Acknowledged'], reason: REASON }];
    const { app, outdir } = queueApp(['Acknowledged', 'Plain'], { acknowledgements, deferred: [] });
    let message = '';
    try {
      app.synth();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/T-Data\/Plain\/Resource/);
    expect(message).not.toMatch(/T-Data\/Acknowledged/);
    const report = guardReport(readNagReports(outdir));
    expect(report?.conclusion).toBe('failure');
    const where = (v: Violation) => v.violatingConstructs?.map((c) => c.constructPath);
    expect(report?.violations.map((v) => [v.ruleName, v.severity, where(v)])).toEqual([
      ['sqs_dlq_check', 'error', ['T-Data/Plain/Resource']],
    ]);
    const acknowledged = (v: Violation) => [v.ruleName, v.acknowledgedId, v.acknowledgedAt, v.reason, where(v)];
    expect(report?.suppressedViolations?.map(acknowledged)).toEqual([
      ['sqs_dlq_check', 'cdk-validator-cfnguard::sqs_dlq_check', 'T-Data/Acknowledged', REASON, ['T-Data/Acknowledged/Resource']],
    ]);
  });

  it('passes synth when every finding is acknowledged, or its control is deferred', () => {
    const acknowledgements = [{ control: 'CT.SQS.PR.1', at: ['Data'], reason: REASON }];
    expect(() => queueApp(['A', 'B'], { acknowledgements, deferred: [] }).app.synth()).not.toThrow();
    expect(() => queueApp(['A', 'B'], { acknowledgements: [], deferred: ['CT.SQS.PR.1'] }).app.synth()).not.toThrow();
  });

  it('refuses an acknowledgement at a construct that does not exist, and a control that is not bundled', () => {
    const missing = [{ control: 'CT.SQS.PR.1', at: ['Data/Gone'], reason: REASON }];
    expect(() => queueApp(['A'], { acknowledgements: missing, deferred: [] })).toThrow(/"Data\/Gone": no construct "Gone"/);
    const unknown = [{ control: 'CT.SQS.PR.99', at: ['Data/A'], reason: REASON }];
    expect(() => queueApp(['A'], { acknowledgements: unknown, deferred: [] })).toThrow(/no bundled Control Tower rule for CT\.SQS\.PR\.99/);
  });

  it('reads the control ids and rule names from the bundled rule files', () => {
    expect(controlTowerRules().size).toBeGreaterThan(200);
    expect(guardAcknowledgementId('CT.CLOUDWATCH.PR.1')).toBe('cdk-validator-cfnguard::cloudwatch_alarm_action_check');
    expect(guardAcknowledgementId('CT.S3.PR.9')).toBe('cdk-validator-cfnguard::s3_bucket_object_lock_enabled_check');
  });
});

describe('the platform app under the Control Tower rules (cdk.json context, no bundles)', () => {
  let platform: PlatformApp;
  let outdir: string;
  let reports: PluginReport[];

  beforeAll(() => {
    outdir = tempOutdir();
    platform = buildApp({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING }, outdir });
    platform.app.synth();
    reports = readNagReports(outdir);
  });

  it('runs the rules and leaves no unacknowledged finding', () => {
    const report = guardReport(reports);
    expect(report, 'guard plugin report').toBeDefined();
    expect(report?.violations.map((v) => `${v.ruleName} at ${v.violatingConstructs?.[0]?.constructPath}`)).toEqual([]);
    expect(report?.conclusion).toBe('success');
  });

  it('uses every acknowledgement of lib/policy-validation-acks.ts, at its construct, with its reason', () => {
    const suppressed = guardReport(reports)?.suppressedViolations ?? [];
    const places = CONTROL_TOWER_ACKNOWLEDGEMENTS.flatMap((ack) => ack.at.map((at) => `${ack.control} @ ${at}`));
    expect(new Set(places).size, 'one entry per control and place').toBe(places.length);
    for (const ack of CONTROL_TOWER_ACKNOWLEDGEMENTS) {
      expect(ack.reason.length, `${ack.control} reason`).toBeGreaterThan(80);
      for (const at of ack.at) {
        const path = resolveAcknowledgementPath(platform.app, platform.stackPrefix, at).node.path;
        const used = suppressed.filter(
          (v) => v.acknowledgedId === guardAcknowledgementId(ack.control) && (v.acknowledgedAt ?? '') === path,
        );
        expect(used.length, `${ack.control} @ ${at || '(app)'} matches no finding: remove it`).toBeGreaterThan(0);
        for (const v of used) expect(v.reason).toBe(ack.reason);
      }
    }
  });

  it('still finds something for each deferred control (delete it from DEFERRED_CONTROLS once its fix is merged)', () => {
    const templatePaths = readdirSync(outdir).filter((f) => f.endsWith('.template.json')).map((f) => join(outdir, f));
    expect(templatePaths).toHaveLength(platform.app.node.children.filter(Stack.isStack).length);
    for (const { control } of DEFERRED_CONTROLS) {
      const rule = controlTowerRules().get(control);
      expect(rule, control).toBeDefined();
      const guard = new CfnGuardValidator({ controlTowerRulesEnabled: false, rules: [rule?.file ?? ''] });
      const { violations } = guard.validate({ templatePaths, appConstruct: platform.app });
      expect(violations.length, `${control} no longer finds anything: its fix is merged, delete it from DEFERRED_CONTROLS`).toBeGreaterThan(0);
    }
  });
});
