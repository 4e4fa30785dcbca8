import { parseArgs, type ParseArgsConfig } from 'node:util';
import { PLAN_IDS, type RateLimits } from '../lib/config/index.js';
import type { ControlPlaneClient } from './control-plane-client.js';
import { CliError, EXIT_FAILURE, EXIT_USAGE, usageError } from './errors.js';
import { accountText, clean, keysTable, keyText, maskedKey, usageText } from './format.js';
import { DEFAULT_CONTROL_URL, HttpControlPlaneClient } from './http-control-plane-client.js';

/** Where the CLI writes, and the environment it reads: the process's, or a test's. */
export interface CliIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
}

const PROGRAM = 'npm run platform --';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface Context {
  readonly client: ControlPlaneClient;
  readonly json: boolean;
  readonly io: CliIo;
  /** The command's one JSON document (--json) or its human text. */
  output(document: unknown, text: string): void;
}

interface Command {
  readonly words: readonly string[];
  readonly summary: string;
  readonly options: Options;
  readonly required: readonly string[];
  /** Flag lines of the help, `[flag, meaning]`. */
  readonly flags: ReadonlyArray<readonly [string, string]>;
  readonly examples: readonly string[];
  run(ctx: Context, values: Values): Promise<void>;
}

const GLOBAL_OPTIONS = {
  json: { type: 'boolean' },
  url: { type: 'string' },
  stack: { type: 'string' },
  outputs: { type: 'string' },
  region: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

const str = (values: Values, name: string) => values[name] as string;

const LIMIT_FLAGS: ReadonlyArray<readonly [string, string]> = [
  ['--per-minute N', 'requests per minute (Enterprise only, with --per-day)'],
  ['--per-day N', 'requests per day (Enterprise only, with --per-minute)'],
];
const LIMIT_OPTIONS = { 'per-minute': { type: 'string' }, 'per-day': { type: 'string' } } as const satisfies Options;

function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n <= 0) {
    throw usageError(`--${flag} must be a whole number above 0, got "${clean(value)}"`);
  }
  return n;
}

function planFlag(values: Values): string {
  const plan = str(values, 'plan');
  if (!(PLAN_IDS as readonly string[]).includes(plan)) {
    throw usageError(`--plan must be one of ${PLAN_IDS.join(', ')}, got "${clean(plan)}"`);
  }
  return plan;
}

/** --per-minute and --per-day: both or neither, and only with --plan enterprise. */
function limitFlags(values: Values, plan: string): RateLimits | undefined {
  const perMinute = values['per-minute'] as string | undefined;
  const perDay = values['per-day'] as string | undefined;
  if (perMinute === undefined && perDay === undefined) return undefined;
  if (plan !== 'enterprise') {
    throw usageError(`--per-minute and --per-day are custom limits, for --plan enterprise only (the ${plan} plan has fixed limits)`);
  }
  if (perMinute === undefined || perDay === undefined) throw usageError('--per-minute and --per-day go together');
  return { perMinute: positiveInt('per-minute', perMinute), perDay: positiveInt('per-day', perDay) };
}

const REVOKE_NOTE = 'The limiter refuses it from the next request on; the authorizer, which caches key lookups, within 30 s.';

export const COMMANDS: readonly Command[] = [
  {
    words: ['accounts', 'create'],
    summary: 'Create an account on a plan',
    options: { name: { type: 'string' }, plan: { type: 'string' }, ...LIMIT_OPTIONS },
    required: ['name', 'plan'],
    flags: [['--name NAME', 'account name (1 to 100 characters)'], ['--plan PLAN', `one of ${PLAN_IDS.join(', ')}`], ...LIMIT_FLAGS],
    examples: [
      'accounts create --name "Acme" --plan pro',
      'accounts create --name "Big Co" --plan enterprise --per-minute 5000 --per-day 1000000',
    ],
    async run(ctx, values) {
      const plan = planFlag(values);
      const limits = limitFlags(values, plan);
      const account = await ctx.client.createAccount({ name: str(values, 'name'), plan, ...(limits ? { limits } : {}) });
      ctx.output(account, `Created account ${account.accountId}.\n${accountText(account)}`);
    },
  },
  {
    words: ['accounts', 'show'],
    summary: 'Show an account: plan, limits in force',
    options: { account: { type: 'string' } },
    required: ['account'],
    flags: [['--account ID', 'the account id (acct_…)']],
    examples: ['accounts show --account acct_demo_pro'],
    async run(ctx, values) {
      const account = await ctx.client.getAccount(str(values, 'account'));
      ctx.output(account, accountText(account));
    },
  },
  {
    words: ['keys', 'create'],
    summary: 'Create an API key; its secret is shown this once',
    options: { account: { type: 'string' }, name: { type: 'string' } },
    required: ['account', 'name'],
    flags: [['--account ID', 'the account id'], ['--name NAME', 'a name for the key (1 to 100 characters)']],
    examples: ['keys create --account acct_demo_pro --name "production"', 'keys create --account acct_demo_pro --name ci --json'],
    async run(ctx, values) {
      const created = await ctx.client.createKey(str(values, 'account'), str(values, 'name'));
      ctx.io.stderr.write('Store this secret now: it will not be shown again (only its SHA-256 hash is kept).\n');
      ctx.output(created, `Created key ${created.key.keyId}.\n${keyText(created.key)}\nsecret: ${created.secret}\n`);
    },
  },
  {
    words: ['keys', 'list'],
    summary: 'List the keys of an account (never their secrets)',
    options: { account: { type: 'string' } },
    required: ['account'],
    flags: [['--account ID', 'the account id']],
    examples: ['keys list --account acct_demo_pro'],
    async run(ctx, values) {
      const keys = await ctx.client.listKeys(str(values, 'account'));
      ctx.output({ keys }, keysTable(keys));
    },
  },
  {
    words: ['keys', 'revoke'],
    summary: 'Revoke a key',
    options: { account: { type: 'string' }, key: { type: 'string' } },
    required: ['account', 'key'],
    flags: [['--account ID', 'the account id'], ['--key KEY_ID', 'the key id (key_…), as keys list shows it']],
    examples: ['keys revoke --account acct_demo_pro --key key_0123456789abcdef0123'],
    async run(ctx, values) {
      const key = await ctx.client.revokeKey(str(values, 'account'), str(values, 'key'));
      ctx.output(key, `Revoked key ${key.keyId} (${maskedKey(key)}).\n${keyText(key)}${REVOKE_NOTE}\n`);
    },
  },
  {
    words: ['plans', 'set'],
    summary: 'Move an account to a plan (Enterprise with custom limits)',
    options: { account: { type: 'string' }, plan: { type: 'string' }, ...LIMIT_OPTIONS },
    required: ['account', 'plan'],
    flags: [['--account ID', 'the account id'], ['--plan PLAN', `one of ${PLAN_IDS.join(', ')}`], ...LIMIT_FLAGS],
    examples: [
      'plans set --account acct_demo_free --plan business',
      'plans set --account acct_demo_free --plan enterprise --per-minute 2000 --per-day 500000',
    ],
    async run(ctx, values) {
      const plan = planFlag(values);
      const limits = limitFlags(values, plan);
      const account = await ctx.client.setPlan(str(values, 'account'), { plan, ...(limits ? { limits } : {}) });
      ctx.output(account, `Account ${account.accountId} is on the ${account.plan} plan; its keys have the new limits from their next request.\n${accountText(account)}`);
    },
  },
  {
    words: ['bans', 'lift'],
    summary: 'Lift the temporary ban of a key',
    options: { account: { type: 'string' }, key: { type: 'string' } },
    required: ['account', 'key'],
    flags: [['--account ID', 'the account id'], ['--key KEY_ID', 'the key id (key_…)']],
    examples: ['bans lift --account acct_demo_free --key key_0123456789abcdef0123'],
    async run(ctx, values) {
      const result = await ctx.client.liftBan(str(values, 'account'), str(values, 'key'));
      ctx.output(
        result,
        result.wasBanned ? `Lifted the ban on key ${result.keyId}.\n` : `Key ${result.keyId} was not banned; its strikes are cleared.\n`,
      );
    },
  },
  {
    words: ['usage'],
    summary: 'Current minute and day usage of every key against its limits',
    options: { account: { type: 'string' } },
    required: ['account'],
    flags: [['--account ID', 'the account id']],
    examples: ['usage --account acct_demo_pro', 'usage --account acct_demo_pro --json'],
    async run(ctx, values) {
      const usage = await ctx.client.usage(str(values, 'account'));
      ctx.output(usage, usageText(usage));
    },
  },
];

const GROUPS = [...new Set(COMMANDS.map((c) => c.words[0] as string))];

const GLOBAL_FLAGS_HELP = `Global flags:
  --json              machine output: exactly one JSON document on stdout (errors too)
  --url URL           the local control-plane API (default $PLATFORM_CONTROL_URL or ${DEFAULT_CONTROL_URL})
  --stack NAME        a deployed stack instead: the API stack's outputs by CloudFormation (default name MessagesPlatform-Api)
  --outputs FILE      a deployed stack instead: the file of cdk deploy --outputs-file
  --region REGION     with --stack/--outputs (default $AWS_REGION, else the config's platform.region)
  -h, --help          help; after a command, that command's help`;

function globalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.words.join(' ').length));
  return `Operator CLI of the Messages Platform: accounts, plans, API keys, bans and usage.

Usage: ${PROGRAM} <command> [flags]

Commands:
${COMMANDS.map((c) => `  ${c.words.join(' ').padEnd(width)}  ${c.summary}`).join('\n')}

${GLOBAL_FLAGS_HELP}

By default the CLI talks to the local platform (npm start). With --stack or --outputs it works on a
deployed stack directly (DynamoDB and API Gateway), with your AWS credentials.

Exit codes: 0 success, 1 refused by the control plane or a network/AWS failure, 2 usage error.

Examples:
  ${PROGRAM} accounts create --name "Acme" --plan pro
  ${PROGRAM} keys create --account acct_demo_pro --name production
  ${PROGRAM} usage --account acct_demo_pro --json
  ${PROGRAM} keys list --account acct_demo_pro --stack MessagesPlatform-Api --region eu-west-1

Run "${PROGRAM} <command> --help" for a command's flags.
`;
}

function groupHelp(group: string): string {
  const commands = COMMANDS.filter((c) => c.words[0] === group);
  const width = Math.max(...commands.map((c) => c.words.join(' ').length));
  return `Usage: ${PROGRAM} ${group} <${commands.map((c) => c.words[1]).join('|')}> [flags]

${commands.map((c) => `  ${c.words.join(' ').padEnd(width)}  ${c.summary}`).join('\n')}

Run "${PROGRAM} ${group} <command> --help" for a command's flags.
`;
}

function commandUsage(command: Command): string {
  const flags = command.flags.map(([flag]) => {
    const name = flag.split(' ')[0]?.slice(2) ?? '';
    return command.required.includes(name) ? flag : `[${flag}]`;
  });
  return `${PROGRAM} ${command.words.join(' ')} ${flags.join(' ')} [--json]`;
}

function commandHelp(command: Command): string {
  const width = Math.max(...command.flags.map(([flag]) => flag.length));
  return `${command.summary}.

Usage: ${commandUsage(command)}

Flags:
${command.flags.map(([flag, meaning]) => `  ${flag.padEnd(width)}  ${meaning}`).join('\n')}

${GLOBAL_FLAGS_HELP}

Examples:
${command.examples.map((e) => `  ${PROGRAM} ${e}`).join('\n')}
`;
}

/** The command named by the leading positionals, or a usage error. */
function findCommand(positionals: readonly string[]): { command?: Command; group?: string } {
  const [group, sub] = positionals;
  if (group === undefined) return {};
  const single = COMMANDS.find((c) => c.words.length === 1 && c.words[0] === group);
  if (single) return { command: single };
  if (!GROUPS.includes(group)) {
    throw usageError(`unknown command "${clean(group)}"`, `run "${PROGRAM} --help" for the commands`);
  }
  if (sub === undefined) return { group };
  const command = COMMANDS.find((c) => c.words[0] === group && c.words[1] === sub);
  if (!command) {
    const subs = COMMANDS.filter((c) => c.words[0] === group).map((c) => c.words[1]);
    throw usageError(`unknown command "${clean(group)} ${clean(sub)}"; ${group} has: ${subs.join(', ')}`, `run "${PROGRAM} ${group} --help"`);
  }
  return { command };
}

/** node:util parseArgs errors as short usage errors. */
function parseError(error: unknown, where: string): CliError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return usageError(`unknown flag ${clean(unknown[1] as string)} for ${where}`, `run "${PROGRAM} ${where === 'the CLI' ? '' : `${where} `}--help"`);
  const missing = /Option '(-\w, )?(--[\w-]+)[^']*' argument (missing|is ambiguous)/.exec(message);
  if (missing) return usageError(`${missing[2]} needs a value`);
  const positional = /Unexpected argument '([^']+)'/.exec(message);
  if (positional) return usageError(`unexpected argument "${clean(positional[1] as string)}"`);
  if (code?.startsWith('ERR_PARSE_ARGS')) return usageError(clean(message.split('. ')[0] ?? message));
  return usageError(clean(message));
}

interface Backend {
  readonly client: ControlPlaneClient;
  close(): void;
}

async function openBackend(values: Values, env: CliIo['env']): Promise<Backend> {
  const url = values.url as string | undefined;
  const stack = values.stack as string | undefined;
  const outputs = values.outputs as string | undefined;
  const region = values.region as string | undefined;
  const deployed = stack !== undefined || outputs !== undefined;
  if (url !== undefined && deployed) throw usageError('--url is for the local platform; --stack/--outputs for a deployed stack: give one or the other');
  if (region !== undefined && !deployed) throw usageError('--region goes with --stack or --outputs');

  if (deployed) {
    // Loaded only for a deployed stack: the AWS SDK clients are not needed locally.
    const { createAwsControlPlane } = await import('./aws-control-plane.js');
    const aws = await createAwsControlPlane({
      ...(stack !== undefined ? { stack } : {}),
      ...(outputs !== undefined ? { outputsFile: outputs } : {}),
      ...(region !== undefined ? { region } : {}),
      env,
    });
    return { client: aws.client, close: () => aws.close() };
  }

  const baseUrl = url ?? (env.PLATFORM_CONTROL_URL || DEFAULT_CONTROL_URL);
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw usageError(`${url !== undefined ? '--url' : 'PLATFORM_CONTROL_URL'} must be an http(s) URL, got "${clean(baseUrl)}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw usageError(`${url !== undefined ? '--url' : 'PLATFORM_CONTROL_URL'} must be an http(s) URL, got "${clean(baseUrl)}"`);
  }
  return { client: new HttpControlPlaneClient(baseUrl), close: () => {} };
}

/** Any error as a CliError; unexpected ones keep their stack for PLATFORM_DEBUG. */
function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(`unexpected failure: ${clean(message)}`, {
    code: 'internal',
    cause: error,
    hint: 'set PLATFORM_DEBUG=1 for the stack trace',
  });
}

/**
 * Runs one CLI invocation in process and returns its exit code: 0, 1 (the control plane, the
 * network or AWS failed or refused) or 2 (usage error). Writes only to `io`.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const args = [...argv];
  let json = false;
  try {
    // First pass, lenient: where is the command, and which global flags are set?
    const allOptions: Options = { ...GLOBAL_OPTIONS };
    for (const command of COMMANDS) Object.assign(allOptions, command.options);
    const loose = parseArgs({ args, options: allOptions, strict: false, allowPositionals: true });
    json = loose.values.json === true;
    const help = loose.values.help === true;
    const positionals = loose.positionals[0] === 'help' ? loose.positionals.slice(1) : loose.positionals;
    const asksHelp = help || loose.positionals[0] === 'help';

    const { command, group } = findCommand(positionals);
    if (!command) {
      if (group !== undefined) {
        if (asksHelp) return write(io.stdout, groupHelp(group), 0);
        const subs = COMMANDS.filter((c) => c.words[0] === group).map((c) => c.words[1]);
        throw usageError(`${group} needs a command: ${subs.join(', ')}`, `run "${PROGRAM} ${group} --help"`);
      }
      if (asksHelp) return write(io.stdout, globalHelp(), 0);
      io.stderr.write(globalHelp());
      throw usageError('no command given');
    }
    if (asksHelp) return write(io.stdout, commandHelp(command), 0);

    // Second pass, strict: the command's flags and the global ones, nothing else.
    const where = command.words.join(' ');
    let parsed;
    try {
      const options = { ...GLOBAL_OPTIONS, ...command.options };
      parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
    } catch (error) {
      throw parseError(error, where);
    }
    const extra = parsed.positionals.slice(command.words.length);
    if (extra.length > 0) throw usageError(`unexpected argument "${clean(extra[0] as string)}" for ${where}`, `usage: ${commandUsage(command)}`);
    const values = parsed.values as Values;
    for (const name of command.required) {
      if (values[name] === undefined) throw usageError(`${where} needs --${name}`, `usage: ${commandUsage(command)}`);
    }

    const backend = await openBackend(values, io.env);
    try {
      let written = false;
      const ctx: Context = {
        client: backend.client,
        json,
        io,
        output(document, text) {
          if (written) throw new Error('a command writes one output');
          written = true;
          io.stdout.write(json ? `${JSON.stringify(document, null, 2)}\n` : text);
        },
      };
      await command.run(ctx, values);
    } finally {
      backend.close();
    }
    return 0;
  } catch (caught) {
    const error = toCliError(caught);
    io.stderr.write(`error: ${error.message}\n`);
    for (const field of error.errors ?? []) io.stderr.write(`  ${clean(field.field)}: ${clean(field.message)}\n`);
    if (error.hint) io.stderr.write(`hint: ${error.hint}\n`);
    if (error.code === 'internal' && io.env.PLATFORM_DEBUG && caught instanceof Error && caught.stack) {
      io.stderr.write(`${caught.stack}\n`);
    }
    if (json) {
      const document = {
        error: {
          message: error.message,
          ...(error.code ? { code: error.code } : {}),
          ...(error.status ? { status: error.status } : {}),
          ...(error.errors ? { errors: error.errors } : {}),
          ...(error.hint ? { hint: error.hint } : {}),
          exitCode: error.exitCode,
        },
      };
      io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    }
    return error.exitCode === EXIT_USAGE ? EXIT_USAGE : EXIT_FAILURE;
  }
}

function write(stream: CliIo['stdout'], text: string, code: number): number {
  stream.write(text);
  return code;
}
