import { type Command, flagName, PROGRAM } from './command.js';
import { DEFAULT_CONTROL_URL } from './control-api-client.js';

// The help texts, built from the command list they are given (COMMANDS in cli/commands.ts), in its order.

export const startsWith = (words: readonly string[], prefix: readonly string[]) =>
  prefix.every((w, i) => words[i] === w);

/** The next words after a group (`keys` → create, list, revoke; `domains` → …, config). */
export const subcommands = (commands: readonly Command[], group: readonly string[]): string[] => {
  const below = commands.filter((c) => c.words.length > group.length && startsWith(c.words, group));
  return [...new Set(below.map((c) => c.words[group.length] as string))];
};

const GLOBAL_FLAGS_HELP = `Global flags:
  --json              machine output: exactly one JSON document on stdout (errors too)
  --url URL           the local control API (default $PLATFORM_CONTROL_URL or ${DEFAULT_CONTROL_URL})
  --stack NAME        a deployed stack instead: the API stack's outputs by CloudFormation (default name MessagesPlatform-Api)
  --outputs FILE      a deployed stack instead: the file of cdk deploy --outputs-file
  --region REGION     with --stack/--outputs (default $AWS_REGION, $AWS_DEFAULT_REGION, your AWS profile's;
                      with --outputs, else the deployment's own platform.region)
  -h, --help          help; after a command, that command's help`;

function listing(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.words.join(' ').length));
  return commands.map((c) => `  ${c.words.join(' ').padEnd(width)}  ${c.summary}`).join('\n');
}

export function globalHelp(commands: readonly Command[]): string {
  return `Operator CLI of the Messages Platform: accounts, plans, API keys, bans and usage; projects,
deploys and custom domains.

Usage: ${PROGRAM} <command> [flags]

Commands:
${listing(commands)}

${GLOBAL_FLAGS_HELP}

By default the CLI talks to the local platform (npm start). With --stack or --outputs it works on a
deployed stack directly (DynamoDB and API Gateway), with your AWS credentials and the deployment's
own config (its PlatformConfig output: plans, limits, backstops). Projects and domains are local
only: on AWS owners manage them in the dashboard (output DashboardUrl).

Exit codes: 0 success, 1 refused by the platform or a network/AWS failure, 2 usage error.

Examples:
  ${PROGRAM} accounts create --name "Acme" --plan pro
  ${PROGRAM} keys create --account acct_demo_pro --name production
  ${PROGRAM} usage --account acct_demo_pro --json
  ${PROGRAM} keys list --account acct_demo_pro --stack MessagesPlatform-Api --region eu-west-1
  ${PROGRAM} projects deploy ./dist --account acct_demo_pro --project prj_0123456789abcdef0123
  ${PROGRAM} domains verify www.example.com --account acct_demo_pro --project prj_0123456789abcdef0123 --wait

Run "${PROGRAM} <command> --help" for a command's flags.
`;
}

export function groupHelp(all: readonly Command[], group: readonly string[]): string {
  const name = group.join(' ');
  return `Usage: ${PROGRAM} ${name} <${subcommands(all, group).join('|')}> [flags]

${listing(all.filter((c) => startsWith(c.words, group)))}

Run "${PROGRAM} ${name} <command> --help" for a command's flags.
`;
}

export function commandUsage(command: Command): string {
  const flags = (command.flags ?? []).map(([flag]) => (command.required?.includes(flagName(flag)) ? flag : `[${flag}]`));
  const args = (command.args ?? []).map(([arg]) => arg);
  return `${PROGRAM} ${[...command.words, ...args, ...flags].join(' ')} [--json]`;
}

export function commandHelp(command: Command): string {
  const { args = [], flags = [] } = command;
  const width = Math.max(...flags.map(([flag]) => flag.length), ...args.map(([arg]) => arg.length));
  const argsHelp = args.length > 0 ? `Arguments:\n${args.map(([arg, meaning]) => `  ${arg.padEnd(width)}  ${meaning}`).join('\n')}\n\n` : '';
  const localNote = command.localOnly
    ? '\nLocal platform only: on AWS, projects and domains are managed through the dashboard\'s control API.\n'
    : '';
  return `${command.summary}.

Usage: ${commandUsage(command)}
${localNote}
${argsHelp}Flags:
${flags.map(([flag, meaning]) => `  ${flag.padEnd(width)}  ${meaning}`).join('\n')}

${GLOBAL_FLAGS_HELP}

Examples:
${command.examples.map((e) => `  ${PROGRAM} ${e}`).join('\n')}
`;
}
