import { setTimeout as sleep } from 'node:timers/promises';
import { domainToASCII } from 'node:url';
import { REDIRECT_STATUSES } from '../../contracts/domains.js';
import type { components } from '../../contracts/openapi/control-api.js';
import {
  type Command,
  type Context,
  ids,
  localProjectParams,
  ON_PROJECT,
  positiveInt,
  PROGRAM,
  PROJECT_FLAGS,
  projectParams,
  PROJECT_REQUIRED,
  str,
  type Values,
} from '../command.js';
import { configText, domainName, domainsTable, domainText, recordsText } from '../domain-format.js';
import { usageError } from '../errors.js';
import { clean } from '../format.js';

export const DEFAULT_WAIT_SECONDS = 60;
const WAIT_FLAG = [
  '--wait [SECONDS]',
  `wait for the outcome, up to SECONDS (default ${DEFAULT_WAIT_SECONDS}); exit 1 unless the domain ends active`,
] as const;
/** States the domain flow is still working in: `--wait` polls while the domain is in one of them. */
const WORKING_STATES = new Set(['verifying', 'issuing_certificate']);

/** A domain as typed (trimmed, lower case, no trailing dot, IDN as punycode), for the URL path. */
export function domainArg(value: string): string {
  const name = value.trim().toLowerCase().replace(/\.$/, '');
  return domainToASCII(name) || name;
}

function redirectStatusFlag(values: Values): number | undefined {
  const status = values.status as string | undefined;
  if (status === undefined) return undefined;
  const n = Number(status);
  if (!/^\d+$/.test(status) || !(REDIRECT_STATUSES as readonly number[]).includes(n)) {
    throw usageError(`--status must be one of ${REDIRECT_STATUSES.join(', ')}, got "${clean(status)}"`);
  }
  return n;
}

/** Verify or Re-verify, then (with --wait) polls the domain while the flow works on it; exit 1 unless it ends active. */
async function verifyCommand(ctx: Context, values: Values, domainInput: string, again: boolean): Promise<void> {
  const [accountId, projectId] = ids(values);
  const params = projectParams(values, { domain: domainArg(domainInput) });
  const waitValue = values.wait as string | undefined;
  const waitSeconds = waitValue === undefined ? undefined : positiveInt('wait', waitValue);
  const client = ctx.projects();
  let view = await client.call((api) => again
    ? api.POST('/accounts/{accountId}/projects/{projectId}/domains/{domain}/reverify', params)
    : api.POST('/accounts/{accountId}/projects/{projectId}/domains/{domain}/verify', params));
  const started = `${again ? 'Re-verification' : 'Verification'} of ${domainName(view)} started (attempt ${view.attempt}).`;
  if (waitSeconds === undefined) {
    ctx.output(view, `${started}\n${domainText(view)}Follow it with: ${PROGRAM} domains list --account ${accountId} --project ${projectId} (or pass --wait)\n`);
    return;
  }

  ctx.io.stderr.write(`${started} Waiting up to ${waitSeconds} s…\n`);
  const deadline = Date.now() + waitSeconds * 1000;
  let interval = 200;
  let seen = view.state as string;
  while (WORKING_STATES.has(view.state) && Date.now() < deadline) {
    await sleep(Math.min(interval, Math.max(0, deadline - Date.now())));
    interval = Math.min(Math.round(interval * 1.5), 2000);
    view = await client.call((api) => api.GET('/accounts/{accountId}/projects/{projectId}/domains/{domain}', params));
    if (view.state !== seen) {
      ctx.io.stderr.write(`  ${seen} → ${view.state}\n`);
      seen = view.state;
    }
  }

  ctx.output(view, domainText(view));
  if (view.state === 'active') return;
  if (WORKING_STATES.has(view.state)) {
    ctx.fail(`${view.domain} is still ${view.state} after ${waitSeconds} s`, 'the flow goes on: check again with domains list, or wait longer with --wait SECONDS');
  } else if (view.state === 'dns_failed') {
    ctx.fail(`${view.domain} did not verify: ${view.failure?.reason ?? 'dns_failed'}`, 'fix the DNS record as the detail says, then run domains reverify');
  } else if (view.state === 'dns_misconfigured') {
    ctx.fail(
      `${view.domain} is dns_misconfigured: ${view.misconfiguration?.reason ?? 'its DNS does not point at its target'}`,
      `it is still served until ${view.misconfiguration?.detachAt ?? 'the end of its grace period'}; fix the DNS record as the detail says, then run domains reverify`,
    );
  } else if (view.state === 'certificate_delayed') {
    ctx.fail(`${view.domain} has no certificate yet (certificate_delayed)`, 'see the diagnosis above; once fixed, run domains reverify');
  } else {
    ctx.fail(`${view.domain} is ${view.state}`);
  }
}

export const DOMAIN_COMMANDS: readonly Command[] = [
  {
    words: ['domains', 'add'],
    summary: 'Add a custom domain (Pro plan or above, after a deploy); shows the DNS records to set',
    args: [['DOMAIN', 'the domain, e.g. www.example.com (an apex such as example.com needs ALIAS/ANAME)']],
    ...ON_PROJECT,
    examples: ['domains add www.example.com --account acct_demo_pro --project prj_0123456789abcdef0123'],
    async run(ctx, values, [domain]) {
      const [accountId, projectId] = ids(values);
      const init = { ...projectParams(values), body: { domain: domain as string } };
      const added = await ctx.projects().call((api) =>
        api.POST('/accounts/{accountId}/projects/{projectId}/domains', init));
      const name = domainName(added.domain);
      ctx.output(
        added,
        `Added ${name} to project ${projectId} (state ${added.domain.state}).\n\n${recordsText(name, added.records)}\n` +
        `Then verify it: ${PROGRAM} domains verify ${added.domain.domain} --account ${accountId} --project ${projectId} --wait\n`,
      );
    },
  },
  {
    words: ['domains', 'list'],
    summary: 'List the custom domains of a project with their state',
    ...ON_PROJECT,
    examples: ['domains list --account acct_demo_pro --project prj_0123456789abcdef0123', 'domains list --account acct_demo_pro --project prj_0123456789abcdef0123 --json'],
    async run(ctx, values) {
      const domains = await ctx.projects().list('domains', (api) =>
        api.GET('/accounts/{accountId}/projects/{projectId}/domains', projectParams(values)));
      ctx.output({ domains }, domainsTable(domains));
    },
  },
  {
    words: ['domains', 'verify'],
    summary: 'Verify a domain: DNS check, then the certificate, then active',
    args: [['DOMAIN', 'a domain of the project']],
    flags: [...PROJECT_FLAGS, WAIT_FLAG],
    examples: [
      'domains verify www.example.com --account acct_demo_pro --project prj_0123456789abcdef0123 --wait',
      'domains verify www.example.com --account acct_demo_pro --project prj_0123456789abcdef0123 --wait 300 --json',
      'domains verify www.example.com --stack MessagesPlatform-Api --region eu-west-1',
    ],
    async run(ctx, values, [domain]) {
      const deployed = ctx.deployed();
      if (!deployed) {
        localProjectParams(values, 'domains verify');
        return verifyCommand(ctx, values, domain as string, false);
      }
      // Operators on a deployed environment (no --account/--project): the owner's Re-verify, run for them.
      if (values.wait !== undefined) throw usageError('--wait is for the local platform; follow a deployed domain with domains show');
      const { reverifyDomain } = await import('../aws-domain-operations.js');
      const view = await reverifyDomain(deployed, domainArg(domain as string));
      ctx.output(view, `Re-verification of ${domainName(view)} started (attempt ${view.attempt}).\n${domainText(view)}` +
      `Follow it with: ${PROGRAM} domains show ${view.domain} --stack ${deployed.stackName}\n`);
    },
  },
  {
    words: ['domains', 'reverify'],
    summary: 'Re-verify a domain: a fresh attempt once DNS or CAA is fixed',
    args: [['DOMAIN', 'a domain of the project']],
    ...ON_PROJECT,
    flags: [...PROJECT_FLAGS, WAIT_FLAG],
    examples: ['domains reverify www.example.com --account acct_demo_pro --project prj_0123456789abcdef0123 --wait 120'],
    run: (ctx, values, [domain]) => verifyCommand(ctx, values, domain as string, true),
  },
  {
    words: ['domains', 'remove'],
    summary: 'Remove a domain: the edge refuses it from the next request on',
    args: [['DOMAIN', 'a domain of the project']],
    ...ON_PROJECT,
    examples: ['domains remove old.example.com --account acct_demo_pro --project prj_0123456789abcdef0123'],
    async run(ctx, values, [domain]) {
      const [, projectId] = ids(values);
      const params = projectParams(values, { domain: domainArg(domain as string) });
      const removed = await ctx.projects().call((api) =>
        api.DELETE('/accounts/{accountId}/projects/{projectId}/domains/{domain}', params));
      if (removed.warning) ctx.io.stderr.write(`warning: ${clean(removed.warning)}\n`);
      ctx.output(removed, `Removed ${removed.domain} from project ${projectId}: it is no longer served.\n`);
    },
  },
  {
    words: ['domains', 'check-drift'],
    summary: 'Re-check every live domain\'s DNS now (operators; it also runs on a schedule)',
    flags: [['--stack NAME', 'a deployed environment: its API stack, <stackPrefix>-Api (the flow is in <stackPrefix>-Domains)']],
    examples: ['domains check-drift', 'domains check-drift --json', 'domains check-drift --stack MessagesPlatform-Api --region eu-west-1'],
    async run(ctx) {
      const deployed = ctx.deployed();
      const started = deployed
        ? await (await import('../aws-domain-operations.js')).startDriftCheck(deployed)
        : await ctx.projects().call((api) => api.POST('/maintenance/domain-drift-check'));
      ctx.output(
        started,
        `Started the drift check of every live domain (execution ${started.execution}, ${started.startedAt}).\n` +
        'Domains no longer pointing at their target become dns_misconfigured; fixed ones become active again; ' +
        'ones past their grace period are detached. See them with domains list.\n',
      );
    },
  },
  {
    words: ['domains', 'config', 'set-primary'],
    summary: 'Make an active domain (or the default subdomain) the primary one',
    args: [['DOMAIN', 'an active domain of the project, or its default subdomain']],
    ...ON_PROJECT,
    examples: ['domains config set-primary www.example.com --account acct_demo_pro --project prj_0123456789abcdef0123'],
    async run(ctx, values, [domain]) {
      const init = { ...projectParams(values), body: { domain: domainArg(domain as string) } };
      const config = await ctx.projects().call((api) =>
        api.PUT('/accounts/{accountId}/projects/{projectId}/domain-config/primary', init));
      ctx.output(config, `The primary domain is ${config.primary}.\n${configText(config)}`);
    },
  },
  {
    words: ['domains', 'config', 'add-redirect'],
    summary: 'Redirect a domain to another of the project (path and query kept)',
    ...ON_PROJECT,
    required: [...PROJECT_REQUIRED, 'from', 'to'],
    flags: [
      ...PROJECT_FLAGS,
      ['--from DOMAIN', 'the domain that redirects'],
      ['--to DOMAIN', 'an active domain of the project (not itself a redirect)'],
      ['--status CODE', `one of ${REDIRECT_STATUSES.join(', ')} (default 301)`],
    ],
    examples: [
      'domains config add-redirect --from example.com --to www.example.com --account acct_demo_pro --project prj_0123456789abcdef0123',
      'domains config add-redirect --from old.example.com --to www.example.com --status 302 --account acct_demo_pro --project prj_0123456789abcdef0123',
    ],
    async run(ctx, values) {
      const status = redirectStatusFlag(values);
      const from = domainArg(str(values, 'from'));
      const to = domainArg(str(values, 'to'));
      const body = { from, to, status } as components['schemas']['AddRedirectRequest'];
      const init = { ...projectParams(values), body };
      const config = await ctx.projects().call((api) =>
        api.POST('/accounts/{accountId}/projects/{projectId}/domain-config/redirects', init));
      const added = config.redirects.find((r) => r.from === from);
      ctx.output(config, `${from} redirects to ${to} (${added?.status ?? status ?? 301}).\n${configText(config)}`);
    },
  },
  {
    words: ['domains', 'config', 'remove-redirect'],
    summary: 'Remove the redirect of a domain',
    ...ON_PROJECT,
    required: [...PROJECT_REQUIRED, 'from'],
    flags: [...PROJECT_FLAGS, ['--from DOMAIN', 'the domain whose redirect goes']],
    examples: ['domains config remove-redirect --from old.example.com --account acct_demo_pro --project prj_0123456789abcdef0123'],
    async run(ctx, values) {
      const from = domainArg(str(values, 'from'));
      const params = projectParams(values, { from });
      const config = await ctx.projects().call((api) =>
        api.DELETE('/accounts/{accountId}/projects/{projectId}/domain-config/redirects/{from}', params));
      ctx.output(config, `${from} no longer redirects.\n${configText(config)}`);
    },
  },
];
