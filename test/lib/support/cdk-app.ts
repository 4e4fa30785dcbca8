import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App } from 'aws-cdk-lib';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { expect } from 'vitest';
import type { PlatformConfig } from '../../../lib/config/index.js';
import { EdgeCertificateStack, EdgeZoneStack } from '../../../lib/stacks/domains-stack.js';

/** The repository root (this file is test/lib/support/cdk-app.ts). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The context of cdk.json (feature flags, stackPrefix): the CLI passes it to the app, so tests
 * that build the app themselves pass it too, to synthesize exactly what `cdk synth` does.
 */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return { ...cdkJson.context };
}

/** Context that skips asset bundling (esbuild) in every stack: for tests that do not look at code. */
export const SKIP_BUNDLING = { 'aws:cdk:bundling-stacks': [] } as const;

/** One finding of a policy-validation plugin (cdk-nag) in the cloud assembly's report. */
export interface Violation {
  ruleName: string;
  severity: string;
  violatingConstructs?: { constructPath: string }[];
  acknowledgedId?: string;
  acknowledgedAt?: string;
  reason?: string;
}

export interface PluginReport {
  pluginName: string;
  conclusion: string;
  violations: Violation[];
  suppressedViolations?: Violation[];
}

/** The policy-validation (cdk-nag) reports written by `app.synth()` into `outdir`. */
export function readNagReports(outdir: string): PluginReport[] {
  const reportFile = join(outdir, cxapi.VALIDATION_REPORT_FILE ?? 'validation-report.json');
  return (JSON.parse(readFileSync(reportFile, 'utf8')) as { pluginReports: PluginReport[] }).pluginReports;
}

/** The AwsSolutions checks ran, and every plugin ended with no unacknowledged finding (error or warning). */
export function expectNoUnacknowledgedFindings(reports: readonly PluginReport[]): void {
  expect(reports.find((r) => r.pluginName === 'AwsSolutions'), 'AwsSolutions plugin report').toBeDefined();
  for (const report of reports) {
    expect(
      report.violations.map((v) => `${v.severity} ${v.ruleName} at ${v.violatingConstructs?.[0]?.constructPath}`),
      report.pluginName,
    ).toEqual([]);
    expect(report.conclusion, report.pluginName).toBe('success');
  }
}

/**
 * The two us-east-1 stacks of the edge as lib/app.ts builds them: `<prefix>-EdgeZone` (the
 * platform zone) and `<prefix>-EdgeCertificate` (the wildcard certificate validated in it).
 */
export function edgeStacks(
  app: App,
  prefix: string,
  config: PlatformConfig,
): { zoneStack: EdgeZoneStack; certStack: EdgeCertificateStack } {
  const zoneStack = new EdgeZoneStack(app, `${prefix}-EdgeZone`, { config });
  const certStack = new EdgeCertificateStack(app, `${prefix}-EdgeCertificate`, { config, zone: zoneStack.platformZone.zone });
  return { zoneStack, certStack };
}
