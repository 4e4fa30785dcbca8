import { parseArgs } from 'node:util';
import { AWS_PROJECTS_MESSAGE, AWS_WEBHOOKS_MESSAGE, openBackend } from './backend.js';
import { type CliIo, type Command, commandOptions, type Context, GLOBAL_OPTIONS, type Options, PROGRAM, type Values } from './command.js';
import { ACCOUNT_COMMANDS } from './commands/accounts.js';
import { BAN_COMMANDS } from './commands/bans.js';
import { DLQ_COMMANDS } from './commands/dlq.js';
import { ENVIRONMENT_COMMANDS } from './commands/environment.js';
import { DOMAIN_OPERATION_COMMANDS } from './commands/domain-operations.js';
import { DEFAULT_WAIT_SECONDS, DOMAIN_COMMANDS } from './commands/domains.js';
import { KEY_COMMANDS } from './commands/keys.js';
import { MESSAGE_COMMANDS } from './commands/messages.js';
import { PLAN_COMMANDS } from './commands/plans.js';
import { PROJECT_COMMANDS } from './commands/projects.js';
import { USAGE_COMMANDS } from './commands/usage.js';
import { WEBHOOK_COMMANDS } from './commands/webhooks.js';
import { HttpProblem } from '../lambda/shared/problem.js';
import { awsError } from './aws-errors.js';
import { CliError, EXIT_FAILURE, usageError } from './errors.js';
import { clean } from './format.js';
import { commandHelp, commandUsage, globalHelp, groupHelp, startsWith, subcommands } from './help.js';

/** Every command, in the order the help lists them. */
const COMMANDS: readonly Command[] = [
  ...ACCOUNT_COMMANDS,
  ...KEY_COMMANDS,
  ...PLAN_COMMANDS,
  ...BAN_COMMANDS,
  ...USAGE_COMMANDS,
  ...MESSAGE_COMMANDS,
  ...DLQ_COMMANDS,
  ...ENVIRONMENT_COMMANDS,
  ...PROJECT_COMMANDS,
  ...DOMAIN_COMMANDS,
  ...DOMAIN_OPERATION_COMMANDS,
  ...WEBHOOK_COMMANDS,
];

/** The command with the most leading words matched, or a group (`keys`, `domains config`), or a usage error. */
function findCommand(positionals: readonly string[]): { command?: Command; group?: readonly string[] } {
  if (positionals.length === 0) return {};
  let command: Command | undefined;
  for (const c of COMMANDS) {
    if (startsWith(positionals, c.words) && (!command || c.words.length > command.words.length)) command = c;
  }
  if (command) return { command };

  let depth = 0;
  while (depth < positionals.length && subcommands(COMMANDS, positionals.slice(0, depth + 1)).length > 0) depth++;
  if (depth === 0) throw usageError(`unknown command "${clean(positionals[0] as string)}"`, `run "${PROGRAM} --help" for the commands`);
  const group = positionals.slice(0, depth);
  if (positionals.length === depth) return { group };
  const name = group.join(' ');
  throw usageError(
    `unknown command "${clean([...group, positionals[depth] as string].join(' '))}"; ${name} has: ${subcommands(COMMANDS, group).join(', ')}`,
    `run "${PROGRAM} ${name} --help"`,
  );
}

/** `--wait` alone (not followed by a number, and before any `--`) means the default seconds. */
function withWaitDefault(argv: readonly string[]): string[] {
  const end = argv.includes('--') ? argv.indexOf('--') : argv.length;
  return argv.map((arg, i) =>
    arg === '--wait' && i < end && !/^\d+$/.test(argv[i + 1] ?? '') ? `--wait=${DEFAULT_WAIT_SECONDS}` : arg);
}

/** node:util parseArgs errors as short usage errors. */
function parseError(error: unknown, where: string): CliError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return usageError(`unknown flag ${clean(unknown[1] as string)} for ${where}`, `run "${PROGRAM} ${where} --help"`);
  const missing = /Option '(-\w, )?(--[\w-]+)[^']*' argument (missing|is ambiguous)/.exec(message);
  if (missing) return usageError(`${missing[2]} needs a value`);
  if (code?.startsWith('ERR_PARSE_ARGS')) return usageError(clean(message.split('. ')[0] ?? message));
  return usageError(clean(message));
}

/** Any error as a CliError; unexpected ones keep their stack for PLATFORM_DEBUG. */
function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  // A refusal of a service the CLI runs in process (domains verify on a deployed stack).
  if (error instanceof HttpProblem) {
    const { code, status, errors } = error;
    return new CliError(error.message, { code, status, errors, cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(`unexpected failure: ${clean(message)}`, {
    code: 'internal',
    cause: error,
    hint: 'set PLATFORM_DEBUG=1 for the stack trace',
  });
}

/** Runs one CLI invocation in process, writing only to `io`; returns its exit code (0, 1 or 2). */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const args = withWaitDefault(argv);
  let json = false;
  try {
    // First pass, lenient: where is the command, and which global flags are set?
    const allOptions: Options = Object.assign({ ...GLOBAL_OPTIONS }, ...COMMANDS.map(commandOptions));
    const loose = parseArgs({ args, options: allOptions, strict: false, allowPositionals: true });
    json = loose.values.json === true;
    const helpWord = loose.positionals[0] === 'help';
    const positionals = helpWord ? loose.positionals.slice(1) : loose.positionals;
    const asksHelp = loose.values.help === true || helpWord;

    const { command, group } = findCommand(positionals);
    if (!command) {
      if (group !== undefined) {
        if (asksHelp) return write(io.stdout, groupHelp(COMMANDS, group), 0);
        const name = group.join(' ');
        throw usageError(`${name} needs a command: ${subcommands(COMMANDS, group).join(', ')}`, `run "${PROGRAM} ${name} --help"`);
      }
      if (asksHelp) return write(io.stdout, globalHelp(COMMANDS), 0);
      io.stderr.write(globalHelp(COMMANDS));
      throw usageError('no command given');
    }
    if (asksHelp) return write(io.stdout, commandHelp(command), 0);

    // Second pass, strict: the command's flags and the global ones, nothing else.
    const where = command.words.join(' ');
    let parsed;
    try {
      const options = { ...GLOBAL_OPTIONS, ...commandOptions(command) };
      parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
    } catch (error) {
      throw parseError(error, where);
    }
    const expected = command.args ?? [];
    const given = parsed.positionals.slice(command.words.length);
    const extra = given.slice(expected.length);
    if (extra.length > 0) throw usageError(`unexpected argument "${clean(extra[0] as string)}" for ${where}`, `usage: ${commandUsage(command)}`);
    const values = parsed.values as Values;
    const missingArg = expected[given.length];
    if (missingArg) throw usageError(`${where} needs ${missingArg[0]}`, `usage: ${commandUsage(command)}`);
    for (const name of command.required ?? []) {
      if (values[name] === undefined) throw usageError(`${where} needs --${name}`, `usage: ${commandUsage(command)}`);
    }

    if (command.messagesApi && ['url', 'stack', 'outputs', 'region'].some((flag) => values[flag] !== undefined)) {
      throw usageError(`${where} calls the Messages API: give its URL with --api-url (--url, --stack, --outputs and --region are the control plane's)`);
    }
    const backend = await openBackend(values, io.env, command.localOnly === true);
    for (const warning of backend.deployed?.warnings ?? []) io.stderr.write(`warning: ${clean(warning)}\n`);
    let exitCode = 0;
    try {
      let written = false;
      const control = (message: string) => {
        if (!backend.control) throw new CliError(message, { code: 'not_supported' });
        return backend.control;
      };
      const ctx: Context = {
        client: backend.client,
        io,
        projects: () => control(AWS_PROJECTS_MESSAGE),
        webhooks: () => control(AWS_WEBHOOKS_MESSAGE),
        deployed: () => backend.deployed,
        output(document, text) {
          if (written) throw new Error('a command writes one output');
          written = true;
          io.stdout.write(json ? `${JSON.stringify(document, null, 2)}\n` : text);
        },
        fail(message, hint) {
          io.stderr.write(`error: ${clean(message)}\n`);
          if (hint) io.stderr.write(`hint: ${hint}\n`);
          exitCode = EXIT_FAILURE;
        },
      };
      await command.run(ctx, values, given);
    } catch (error) {
      throw backend.deployed ? awsError(error, backend.deployed.region) : error;
    } finally {
      backend.close();
    }
    return exitCode;
  } catch (caught) {
    const error = toCliError(caught);
    io.stderr.write(`error: ${error.message}\n`);
    for (const field of error.errors ?? []) io.stderr.write(`  ${clean(field.field)}: ${clean(field.message)}\n`);
    if (error.hint) io.stderr.write(`hint: ${error.hint}\n`);
    if (error.code === 'internal' && io.env.PLATFORM_DEBUG && caught instanceof Error && caught.stack) {
      io.stderr.write(`${caught.stack}\n`);
    }
    if (json) {
      // JSON.stringify leaves out the fields that are undefined.
      const { message, code, status, errors, hint, exitCode } = error;
      io.stdout.write(`${JSON.stringify({ error: { message, code, status, errors, hint, exitCode } }, null, 2)}\n`);
    }
    return error.exitCode;
  }
}

function write(stream: CliIo['stdout'], text: string, code: number): number {
  stream.write(text);
  return code;
}
