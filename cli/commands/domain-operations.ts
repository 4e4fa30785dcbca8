import { type Command, type Context, deployedOnly, localProjectParams, PROGRAM, PROJECT_FLAGS } from '../command.js';
import { domainText } from '../domain-format.js';
import { table } from '../format.js';
import type { showDomain } from '../aws-domain-operations.js';
import { domainArg } from './domains.js';

const STACK_FLAG = ['--stack NAME', 'a deployed environment: its API stack, <stackPrefix>-Api (the domains are in <stackPrefix>-DomainsData and -Domains)'] as const;

const operatorsOnly = (ctx: Context, command: string) => deployedOnly(
  ctx,
  `domains ${command} is an operator command for a deployed environment: give --stack <stackPrefix>-Api`,
  'on the local platform, domains list/verify/reverify with --account and --project do the owner\'s part',
);

function historyText(inspection: Awaited<ReturnType<typeof showDomain>>): string {
  if (inspection.history.length === 0) return 'No execution of the domain flow for it.\n';
  const rows = inspection.history.map((run) => [run.startedAt ?? '', run.kind, run.status, run.stoppedAt ?? '', run.name]);
  const more = inspection.historyTruncated ? 'Older executions of the flow were not read.\n' : '';
  return `${table(['started', 'kind', 'status', 'stopped', 'execution'], rows)}${more}`;
}

/** Operators' commands on one customer domain of a deployed environment (docs/operators/cli.md). */
export const DOMAIN_OPERATION_COMMANDS: readonly Command[] = [
  {
    words: ['domains', 'show'],
    summary: 'Show a domain\'s state, reason, DNS target and its domain-flow executions (operators, deployed stack)',
    args: [['DOMAIN', 'any customer domain of the environment (locally, a domain of the project)']],
    flags: [STACK_FLAG, ...PROJECT_FLAGS],
    examples: [
      'domains show www.example.com --stack MessagesPlatform-Api --region eu-west-1',
      'domains show www.example.com --stack MessagesPlatform-Api --json',
      'domains show www.example.com --account acct_demo_pro --project prj_0123456789abcdef0123',
    ],
    async run(ctx, values, [domain]) {
      if (!ctx.deployed()) {
        // The local platform: the domain through the control API, as its owner sees it (no flow history there).
        const params = localProjectParams(values, 'domains show', { domain: domainArg(domain as string) });
        const view = await ctx.projects().call((api) =>
          api.GET('/accounts/{accountId}/projects/{projectId}/domains/{domain}', params));
        ctx.output({ domain: view }, domainText(view));
        return;
      }
      const stack = operatorsOnly(ctx, 'show');
      const { showDomain } = await import('../aws-domain-operations.js');
      const inspection = await showDomain(stack, domainArg(domain as string));
      ctx.output(inspection, `${domainText(inspection.domain)}account ${inspection.domain.accountId}\n\n${historyText(inspection)}`);
    },
  },
  {
    words: ['domains', 'release'],
    summary: 'Start again the release of a removed domain\'s tenant whose release is stuck (operators, deployed stack)',
    args: [['DOMAIN', 'a removed domain of the environment']],
    flags: [STACK_FLAG],
    examples: ['domains release old.example.com --stack MessagesPlatform-Api --region eu-west-1'],
    async run(ctx, _values, [domain]) {
      const stack = operatorsOnly(ctx, 'release');
      const { releaseDomainTenant } = await import('../aws-domain-operations.js');
      const started = await releaseDomainTenant(stack, domainArg(domain as string));
      ctx.output(
        started,
        `Started the release of ${started.domain}'s tenant (execution ${started.execution}, ${started.startedAt}).\n` +
        `Follow it with: ${PROGRAM} domains show ${started.domain} --stack ${stack.stackName}\n`,
      );
    },
  },
];
