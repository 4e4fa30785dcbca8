import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import {
  type App,
  type IPolicyValidationContext,
  type IPolicyValidationPlugin,
  type PolicyValidationPluginReport,
  Validations,
} from 'aws-cdk-lib';
import { type IConstruct } from 'constructs';
import {
  CONTROL_TOWER_ACKNOWLEDGEMENTS,
  type ControlTowerAcknowledgement,
  DEFERRED_CONTROLS,
} from './policy-validation-acks.js';

/** The plugin's name, and so the prefix of its acknowledgement ids (`cdk-validator-cfnguard::<rule>`). */
export const GUARD_PLUGIN_NAME = 'cdk-validator-cfnguard';

/** One bundled Control Tower rule: its control id, the guard rule name findings carry, its file. */
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

/**
 * The bundled Control Tower rules by control id (CT.S3.PR.9), read from the plugin's rule files:
 * findings name the guard rule (s3_bucket_object_lock_enabled_check), people name the control.
 */
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

/** Acknowledges a Control Tower control on `scope` and everything below it, with the reason in the report. */
export function acknowledgeControl(scope: IConstruct, control: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: guardAcknowledgementId(control), reason });
}

/**
 * The guard plugin with every finding marked `error`. cfn-guard's findings carry no severity, and
 * when any finding of a report is acknowledged the CDK recomputes the report's success from the
 * severities of the findings left: without one, an unacknowledged finding would then pass synth.
 */
class ControlTowerGuard implements IPolicyValidationPlugin {
  readonly name: string;
  readonly version?: string;
  readonly ruleIds?: string[];

  constructor(private readonly guard: CfnGuardValidator) {
    this.name = guard.name;
    this.version = guard.version;
    this.ruleIds = guard.ruleIds;
  }

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const report = this.guard.validate(context);
    return { ...report, violations: report.violations.map((v) => ({ ...v, severity: 'error' })) };
  }
}

export interface ControlTowerOptions {
  /** Controls to leave out of the run. @default DEFERRED_CONTROLS */
  readonly deferred?: readonly string[];
  /** Acknowledgements to apply. @default CONTROL_TOWER_ACKNOWLEDGEMENTS */
  readonly acknowledgements?: readonly ControlTowerAcknowledgement[];
}

/**
 * The guard plugin with the bundled Control Tower rules, except the `deferred` controls. The rule
 * files are listed one by one: the plugin's `disabledRules` re-enables a rule whose directory holds
 * two (it then passes the whole rules directory to cfn-guard), e.g. CT.SQS.PR.1 of sqs/.
 */
export function controlTowerGuard(deferred: readonly string[] = DEFERRED_CONTROLS.map((d) => d.control)):
IPolicyValidationPlugin {
  for (const control of deferred) ruleOf(control); // a deferred id that names no rule is a typo: fail
  const rules = [...controlTowerRules().values()].filter((r) => !deferred.includes(r.control)).map((r) => r.file);
  return new ControlTowerGuard(new CfnGuardValidator({ controlTowerRulesEnabled: false, rules: rules.sort() }));
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
 * Runs the AWS Control Tower proactive controls (cfn-guard) on every template at synth: a finding
 * that is not acknowledged fails `cdk synth`. The acknowledgements and the deferred controls are
 * listed, with their reasons, in lib/policy-validation-acks.ts.
 */
export function applyControlTower(app: App, stackPrefix: string, options: ControlTowerOptions = {}): void {
  Validations.of(app).addPlugins(controlTowerGuard(options.deferred));
  for (const ack of options.acknowledgements ?? CONTROL_TOWER_ACKNOWLEDGEMENTS) {
    for (const path of ack.at) {
      acknowledgeControl(resolveAcknowledgementPath(app, stackPrefix, path), ack.control, ack.reason);
    }
  }
}
