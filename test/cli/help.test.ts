import { describe, expect, it } from 'vitest';
import type { Command } from '../../cli/command.js';
import { commandHelp, commandUsage, globalHelp, groupHelp, startsWith, subcommands } from '../../cli/help.js';

const command = (words: string[], extra: Partial<Command> = {}): Command => ({
  words,
  summary: `Do ${words.join(' ')}`,
  required: ['account'],
  flags: [['--account ID', 'the account id'], ['--name NAME', 'a name']],
  examples: [`${words.join(' ')} --account acct_1`],
  run: async () => {},
  ...extra,
});

const COMMANDS = [
  command(['keys', 'create']),
  command(['keys', 'list']),
  command(['domains', 'add'], { args: [['DOMAIN', 'the domain']], localOnly: true }),
  command(['domains', 'config', 'set-primary']),
];

describe('help texts from a command list', () => {
  it('startsWith compares the leading words only', () => {
    expect(startsWith(['domains', 'config', 'set-primary'], ['domains', 'config'])).toBe(true);
    expect(startsWith(['domains', 'add'], ['domains', 'config'])).toBe(false);
  });

  it('subcommands lists the next words of a group once each, in list order', () => {
    expect(subcommands(COMMANDS, ['keys'])).toEqual(['create', 'list']);
    expect(subcommands(COMMANDS, ['domains'])).toEqual(['add', 'config']);
    expect(subcommands(COMMANDS, ['domains', 'config'])).toEqual(['set-primary']);
    expect(subcommands(COMMANDS, ['usage'])).toEqual([]);
  });

  it('the usage line puts optional flags in brackets and arguments after the words', () => {
    expect(commandUsage(COMMANDS[2] as Command)).toBe(
      'npm run platform -- domains add DOMAIN --account ID [--name NAME] [--json]',
    );
  });

  it('a group help lists only that group, padded to its longest command', () => {
    expect(groupHelp(COMMANDS, ['keys'])).toBe(
      'Usage: npm run platform -- keys <create|list> [flags]\n\n' +
      '  keys create  Do keys create\n' +
      '  keys list    Do keys list\n\n' +
      'Run "npm run platform -- keys <command> --help" for a command\'s flags.\n',
    );
  });

  it('the global help lists every command in the order given', () => {
    const lines = globalHelp(COMMANDS).split('\n');
    const first = lines.indexOf('Commands:') + 1;
    expect(lines.slice(first, first + 4)).toEqual([
      '  keys create                 Do keys create',
      '  keys list                   Do keys list',
      '  domains add                 Do domains add',
      '  domains config set-primary  Do domains config set-primary',
    ]);
  });

  it('a local-only command says so, and lists its arguments before its flags', () => {
    const help = commandHelp(COMMANDS[2] as Command);
    expect(help).toContain('\nLocal platform only: on AWS, projects and domains are managed through the dashboard\'s control API.\n');
    expect(help).toContain('Arguments:\n  DOMAIN        the domain\n\nFlags:\n  --account ID  the account id\n  --name NAME   a name\n');
    expect(commandHelp(COMMANDS[0] as Command)).not.toContain('Local platform only');
  });
});
