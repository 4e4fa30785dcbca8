import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { type App, type IPolicyValidationContextBeta1, type PolicyValidationPluginReportBeta1, Validations } from 'aws-cdk-lib';
import { type IConstruct } from 'constructs';
import {
  CONTROL_TOWER_ACKNOWLEDGEMENTS,
  type ControlTowerAcknowledgement,
  DEFERRED_CONTROLS,
} from './policy-validation-acks.js';

/** The prefix of the plugin's acknowledgement ids (`cdk-validator-cfnguard::<rule>`). */
export const GUARD_PLUGIN_NAME = 'cdk-validator-cfnguard';

export interface ControlTowerRule {
  readonly control: string;
  readonly guardRule: string;
  readonly file: string;
}

const RULES_DIR = join(
  dirname(createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json')),
  'rules/control-tower/cfn-guard',
);

let rulesByControl: ReadonlyMap<string, ControlTowerRule> | undefined;

/** The bundled rules by control id (CT.S3.PR.9): findings name the guard rule, people the control. */
export function controlTowerRules(): ReadonlyMap<string, ControlTowerRule> {
  if (rulesByControl) return rulesByControl;
  const map = new Map<string, ControlTowerRule>();
  for (const entry of readdirSync(RULES_DIR, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.guard')) continue;
    const file = join(RULES_DIR, entry);
    const text = readFileSync(file, 'utf8');
    const control = /\[(CT\.[A-Z0-9-]+\.PR\.\d+)\]/.exec(text)?.[1];
    const guardRule = /^rule ([a-z0-9_]+) when/m.exec(text)?.[1];
    if (!control || !guardRule) throw new Error(`Control Tower rule file without a control id or rule name: ${file}`);
    map.set(control, { control, guardRule, file });
  }
  rulesByControl = map;
  return map;
}

function ruleOf(control: string): ControlTowerRule {
  const rule = controlTowerRules().get(control);
  if (!rule) throw new Error(`no bundled Control Tower rule for ${control} (${RULES_DIR})`);
  return rule;
}

/** The acknowledgement id of a control's findings, as the validation report prints it. */
export function guardAcknowledgementId(control: string): string {
  return `${GUARD_PLUGIN_NAME}::${ruleOf(control).guardRule}`;
}

/**
 * cfn-guard's findings carry no severity, and once one finding of a report is acknowledged the CDK
 * recomputes its success from the severities left: marked `error`, an unacknowledged one still fails.
 */
class ControlTowerGuard extends CfnGuardValidator {
  override validate(context: IPolicyValidationContextBeta1): PolicyValidationPluginReportBeta1 {
    const report = super.validate(context);
    return { ...report, violations: report.violations.map((v) => ({ ...v, severity: 'error' })) };
  }
}

export interface ControlTowerOptions {
  /** @default DEFERRED_CONTROLS */
  readonly deferred?: readonly string[];
  /** @default CONTROL_TOWER_ACKNOWLEDGEMENTS */
  readonly acknowledgements?: readonly ControlTowerAcknowledgement[];
}

/** The construct an acknowledgement names: `''` is the app, `Api/Messages/RestApi` is `<prefix>-Api/Messages/RestApi`. */
export function resolveAcknowledgementPath(app: App, stackPrefix: string, path: string): IConstruct {
  if (path === '') return app;
  const [stack, ...rest] = path.split('/');
  let scope: IConstruct = app;
  for (const id of [`${stackPrefix}-${stack}`, ...rest]) {
    const child = scope.node.tryFindChild(id);
    if (!child) throw new Error(`Control Tower acknowledgement at "${path}": no construct "${id}" under "${scope.node.path}"`);
    scope = child;
  }
  return scope;
}

/**
 * Runs the Control Tower proactive controls (cfn-guard) on every template at synth: an unacknowledged
 * finding fails `cdk synth` (acknowledgements and deferred controls: lib/policy-validation-acks.ts).
 * The rule files are passed one by one: the plugin's `disabledRules` passes a whole rules directory
 * to cfn-guard when it holds two files (CT.SQS.PR.1 of sqs/), re-enabling the rule.
 */
export function applyControlTower(app: App, stackPrefix: string, options: ControlTowerOptions = {}): void {
  const deferred = options.deferred ?? DEFERRED_CONTROLS.map((d) => d.control);
  for (const control of deferred) ruleOf(control); // a deferred id that names no rule is a typo: fail
  const rules = [...controlTowerRules().values()].filter((r) => !deferred.includes(r.control)).map((r) => r.file);
  Validations.of(app).addPlugins(new ControlTowerGuard({ controlTowerRulesEnabled: false, rules: rules.sort() }));
  for (const ack of options.acknowledgements ?? CONTROL_TOWER_ACKNOWLEDGEMENTS) {
    for (const path of ack.at) {
      const id = guardAcknowledgementId(ack.control);
      Validations.of(resolveAcknowledgementPath(app, stackPrefix, path)).acknowledge({ id, reason: ack.reason });
    }
  }
}
