import { type ParseArgsConfig } from 'node:util';
import { PLAN_IDS, type RateLimits } from '../lib/config/index.js';
import type { DeployedStack } from './deployed-stack.js';
import type { ControlApiClient } from './control-api-client.js';
import type { OperatorClient } from './operator-client.js';
import { CliError, usageError } from './errors.js';
import { clean } from './format.js';

/** Where the CLI writes, and the environment it reads: the process's, or a test's. */
export interface CliIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
}

export const PROGRAM = 'npm run platform --';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | undefined>;

export interface Context {
  readonly client: OperatorClient;
  readonly io: CliIo;
  /** The deployment's API stack, with --stack/--outputs (undefined against the local platform). */
  deployed(): DeployedStack | undefined;
  /** Projects, deploys and domains: the local control API only (commands marked `localOnly`). */
  projects(): ControlApiClient;
  webhooks(): ControlApiClient;
  /** The command's one JSON document (--json) or its human text. */
  output(document: unknown, text: string): void;
  /** After `output`, for work done with a failed outcome: `error: <message>` on stderr, exit code 1. */
  fail(message: string, hint?: string): void;
}

export interface Command {
  readonly words: readonly string[];
  readonly summary: string;
  /** Positional arguments after the command words, all required: `[NAME, meaning]`. */
  readonly args?: ReadonlyArray<readonly [string, string]>;
  readonly required?: readonly string[];
  /** Flag lines of the help, `[flag, meaning]`; the command's own options are read from them. */
  readonly flags?: ReadonlyArray<Flag>;
  readonly examples: readonly string[];
  /** Only against the local control API (not with --stack/--outputs). */
  readonly localOnly?: boolean;
  /** Talks to the Messages API with an API key, not to the control API: --url, --stack, --outputs do not apply. */
  readonly messagesApi?: boolean;
  run(ctx: Context, values: Values, args: readonly string[]): Promise<void>;
}

/** The deployed stack of a command that needs one (--stack/--outputs), or a not_supported error. */
export function deployedOnly(ctx: Context, message: string, hint: string): DeployedStack {
  const stack = ctx.deployed();
  if (!stack) throw new CliError(message, { code: 'not_supported', hint });
  return stack;
}

export const GLOBAL_OPTIONS = {
  json: { type: 'boolean' },
  url: { type: 'string' },
  stack: { type: 'string' },
  outputs: { type: 'string' },
  region: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

export type Flag = readonly [string, string];

/** `--account ID` → `account`. */
export const flagName = (flag: string) => flag.split(' ')[0]?.slice(2) ?? '';

/** The command's own options: `--name VALUE` takes a string, `--yes` none; global flags are left to GLOBAL_OPTIONS. */
export function commandOptions(command: Command): Options {
  const options: Options = {};
  for (const [flag] of command.flags ?? []) {
    const name = flagName(flag);
    if (!(name in GLOBAL_OPTIONS)) options[name] = { type: flag.includes(' ') ? 'string' : 'boolean' };
  }
  return options;
}

export const str = (values: Values, name: string) => values[name] as string;

export const ACCOUNT_FLAG: Flag = ['--account ID', 'the account id'];
export const ON_ACCOUNT = { required: ['account'], flags: [ACCOUNT_FLAG] };

export const LIMIT_FLAGS: readonly Flag[] = [
  ['--per-minute N', 'requests per minute (Enterprise only, with --per-day)'],
  ['--per-day N', 'requests per day (Enterprise only, with --per-minute)'],
];

/** An http(s) URL, or a usage error naming where it came from (`--url`, `PLATFORM_CONTROL_URL`, …). */
export function httpUrl(value: string, source: string): URL {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !['http:', 'https:'].includes(url.protocol)) throw usageError(`${source} must be an http(s) URL, got "${clean(value)}"`);
  return url;
}

export function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n <= 0) {
    throw usageError(`--${flag} must be a whole number above 0, got "${clean(value)}"`);
  }
  return n;
}

/** --plan, and --per-minute with --per-day: both or neither, and only with --plan enterprise. */
export function planInput(values: Values): { plan: string; limits?: RateLimits } {
  const plan = str(values, 'plan');
  if (!(PLAN_IDS as readonly string[]).includes(plan)) {
    throw usageError(`--plan must be one of ${PLAN_IDS.join(', ')}, got "${clean(plan)}"`);
  }
  const perMinute = values['per-minute'] as string | undefined;
  const perDay = values['per-day'] as string | undefined;
  if (perMinute === undefined && perDay === undefined) return { plan };
  if (plan !== 'enterprise') {
    throw usageError(`--per-minute and --per-day are custom limits, for --plan enterprise only (the ${plan} plan has fixed limits)`);
  }
  if (perMinute === undefined || perDay === undefined) throw usageError('--per-minute and --per-day go together');
  return { plan, limits: { perMinute: positiveInt('per-minute', perMinute), perDay: positiveInt('per-day', perDay) } };
}

export const PROJECT_FLAGS: readonly Flag[] = [
  ACCOUNT_FLAG,
  ['--project ID', 'the project id (prj_…), as projects create and projects list show it'],
];
export const PROJECT_REQUIRED = ['account', 'project'] as const;
/** A command on one project of the local control API, with only --account and --project. */
export const ON_PROJECT = { required: PROJECT_REQUIRED, flags: PROJECT_FLAGS, localOnly: true } as const;

/** projectParams, once --account and --project are given: locally the domain alone does not name the project. */
export function localProjectParams<P extends object = object>(values: Values, where: string, more = {} as P) {
  const missing = PROJECT_REQUIRED.find((name) => values[name] === undefined);
  if (missing) throw usageError(`${where} needs --${missing}`, 'on a deployed stack (--stack) give the domain alone');
  return projectParams(values, more);
}

/** A control API call's path parameters: --account (and --project), then `more`. */
export const accountParams = <P extends object = object>(values: Values, more = {} as P) =>
  ({ params: { path: { accountId: str(values, 'account'), ...more } } });
export const projectParams = <P extends object = object>(values: Values, more = {} as P) =>
  ({ params: { path: { accountId: str(values, 'account'), projectId: str(values, 'project'), ...more } } });

export const ids = (values: Values) => [str(values, 'account'), str(values, 'project')] as const;
