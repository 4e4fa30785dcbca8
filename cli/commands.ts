import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { domainToASCII } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { REDIRECT_STATUSES } from '../lambda/domains/domain-config.js';
import { PLAN_IDS, type RateLimits } from '../lib/config/index.js';
import type { DeployedStack } from './deployed-stack.js';
import type {
  ControlPlaneClient,
  DeployFileUpload,
  ProjectsClient,
  ProjectView,
} from './control-plane-client.js';
import { CliError, EXIT_FAILURE, EXIT_USAGE, usageError } from './errors.js';
import { configText, domainConfigRows, domainName, domainsTable, domainText, recordsText } from './domain-format.js';
import { accountText, clean, keysTable, keyText, keyValues, maskedKey, migrationText, table, usageText } from './format.js';
import { DEFAULT_CONTROL_URL, HttpControlPlaneClient } from './http-control-plane-client.js';
import { MAX_HISTORY_DAYS } from '../lambda/usage-history/usage-days.js';
import { usageHistoryText } from './usage-history-format.js';

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
  /** The deployment's API stack, with --stack/--outputs (undefined against the local platform). */
  deployed(): DeployedStack | undefined;
  /** Projects, deploys and domains: the local control-plane API only (commands marked `localOnly`). */
  projects(): ProjectsClient;
  /** The command's one JSON document (--json) or its human text. */
  output(document: unknown, text: string): void;
  /**
   * After `output`: the command did its work but the outcome is a failure (e.g. a domain that did
   * not verify). Prints `error: <message>` on stderr and makes the exit code 1.
   */
  fail(message: string, hint?: string): void;
}

interface Command {
  readonly words: readonly string[];
  readonly summary: string;
  /** Positional arguments after the command words, all required: `[NAME, meaning]`. */
  readonly args?: ReadonlyArray<readonly [string, string]>;
  readonly options: Options;
  readonly required: readonly string[];
  /** Flag lines of the help, `[flag, meaning]`. */
  readonly flags: ReadonlyArray<readonly [string, string]>;
  readonly examples: readonly string[];
  /** Only against the local control-plane API (not with --stack/--outputs). */
  readonly localOnly?: boolean;
  run(ctx: Context, values: Values, args: readonly string[]): Promise<void>;
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

// ---- Projects, deploys and custom domains (the local control-plane API only) ----

const PROJECT_FLAGS: ReadonlyArray<readonly [string, string]> = [
  ['--account ID', 'the account id'],
  ['--project ID', 'the project id (prj_…), as projects create and projects list show it'],
];
const PROJECT_OPTIONS = { account: { type: 'string' }, project: { type: 'string' } } as const satisfies Options;
const PROJECT_REQUIRED = ['account', 'project'] as const;
const ids = (values: Values) => [str(values, 'account'), str(values, 'project')] as const;

export const DEFAULT_WAIT_SECONDS = 60;
const WAIT_FLAG = [
  '--wait [SECONDS]',
  `wait for the outcome, up to SECONDS (default ${DEFAULT_WAIT_SECONDS}); exit 1 unless the domain ends active`,
] as const;
/** States the domain flow is still working in: `--wait` polls while the domain is in one of them. */
const WORKING_STATES = new Set(['verifying', 'issuing_certificate']);

/** A domain as typed (trimmed, lower case, no trailing dot, IDN as punycode), for the URL path. */
function domainArg(value: string): string {
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

const byteCount = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

function projectText(project: ProjectView): string {
  const last = project.lastDeploy;
  const lastText = last
    ? `${last.deployId} ${last.state} ${last.finishedAt ?? last.startedAt}` +
    (last.fileCount !== undefined ? ` (${last.fileCount} files, ${byteCount(last.bytes ?? 0)})` : '') +
    (last.error ? `: ${last.error}` : '')
    : undefined;
  return keyValues([
    ['project', project.projectId],
    ['account', project.accountId],
    ['slug', project.slug],
    ['name', project.name],
    ['url', project.liveDeployId ? project.url : `${project.url} (served after the first successful deploy)`],
    ['deploy state', project.deployState],
    ['live deploy', project.liveDeployId],
    ['last deploy', lastText],
    ...domainConfigRows(project.domains),
    ['created', project.createdAt],
  ]);
}

function projectsTable(projects: readonly ProjectView[]): string {
  if (projects.length === 0) return 'No projects.\n';
  return table(
    ['ID', 'SLUG', 'NAME', 'DEPLOY', 'LIVE DEPLOY', 'URL', 'CREATED'],
    projects.map((p) => [p.projectId, p.slug, p.name, p.deployState, p.liveDeployId, p.url, p.createdAt]),
  );
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Verify or Re-verify, then (with --wait) polls the domain until the flow leaves
 * verifying/issuing_certificate or the time runs out. Exit 1 unless it ends active.
 */
async function verifyCommand(ctx: Context, values: Values, domainInput: string, again: boolean): Promise<void> {
  const [accountId, projectId] = ids(values);
  const domain = domainArg(domainInput);
  const waitValue = values.wait as string | undefined;
  const waitSeconds = waitValue === undefined ? undefined : positiveInt('wait', waitValue);
  const client = ctx.projects();
  let view = await client.verifyDomain(accountId, projectId, domain, again);
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
    view = await client.getDomain(accountId, projectId, domain);
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

/**
 * Every regular file under `dir` (recursively) as a deploy upload with its relative POSIX path.
 * Dotfiles and dot-directories (.git, .env…) are left out; a symbolic link is followed only when
 * it stays inside `dir`. A missing, unreadable or empty directory is a usage error.
 */
export async function readSite(dir: string): Promise<{ files: DeployFileUpload[]; bytes: number; skipped: number }> {
  let info;
  try {
    info = await stat(dir);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw usageError(code === 'ENOENT' ? `no directory ${clean(dir)}` : `cannot read ${clean(dir)} (${code ?? String(error)})`);
  }
  if (!info.isDirectory()) throw usageError(`${clean(dir)} is not a directory: projects deploy takes the folder of the site`);
  const root = await realpath(dir);
  const inside = (path: string) => {
    const rel = relative(root, path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  };

  const files: DeployFileUpload[] = [];
  const visited = new Set<string>([root]);
  let bytes = 0;
  let skipped = 0;
  const walk = async (real: string, prefix: string): Promise<void> => {
    const entries = await readdir(real, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) {
        skipped++;
        continue;
      }
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      let target = join(real, entry.name);
      let kind = await lstat(target);
      if (kind.isSymbolicLink()) {
        let resolved;
        try {
          resolved = await realpath(target);
        } catch {
          throw usageError(`${clean(path)} in ${clean(dir)} is a broken symbolic link`);
        }
        if (!inside(resolved)) {
          throw usageError(`${clean(path)} in ${clean(dir)} is a symbolic link to ${clean(resolved)}, outside the folder: refusing to upload it`);
        }
        target = resolved;
        kind = await stat(resolved);
      }
      if (kind.isDirectory()) {
        if (visited.has(target)) continue; // a link back up the tree
        visited.add(target);
        await walk(target, path);
      } else if (kind.isFile()) {
        const body = await readFile(target);
        bytes += body.byteLength;
        files.push({ path, content: body.toString('base64') });
      }
    }
  };
  await walk(root, '');
  if (files.length === 0) {
    throw usageError(`${clean(dir)} has no files to deploy${skipped > 0 ? ` (dotfiles and dot-directories are left out)` : ''}`);
  }
  return { files, bytes, skipped };
}

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
    words: ['accounts', 'migrate'],
    summary: 'Move accounts from before per-account limits: shared budgets, one internal key per account (idempotent)',
    options: { account: { type: 'string' } },
    required: [],
    flags: [['--account ID', 'only this account (default: every account with keys)']],
    examples: [
      'accounts migrate --account acct_demo_pro',
      'accounts migrate --stack MessagesPlatform-Api --region eu-west-1',
    ],
    async run(ctx, values) {
      const result = await ctx.client.migrate(values.account as string | undefined);
      ctx.output(result, migrationText(result));
      if (result.changed.length > 0) {
        ctx.fail(`${result.changed.length} key record(s) changed during the run and were left alone`, 'run accounts migrate again');
      }
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
    summary: 'The account\'s minute and day usage against its limits, with each key\'s share (revoked keys too) and bans',
    options: { account: { type: 'string' } },
    required: ['account'],
    flags: [['--account ID', 'the account id']],
    examples: ['usage --account acct_demo_pro', 'usage --account acct_demo_pro --json'],
    async run(ctx, values) {
      const usage = await ctx.client.usage(str(values, 'account'));
      ctx.output(usage, usageText(usage));
    },
  },
  {
    words: ['usage', 'history'],
    summary: 'The account\'s accepted and refused (429) requests per UTC day, up to 30 days, per key (revoked too) and in all',
    options: { account: { type: 'string' }, days: { type: 'string' } },
    required: ['account'],
    flags: [['--account ID', 'the account id'], ['--days N', 'days to show, today included: 1 to 30 (default 30)']],
    examples: ['usage history --account acct_demo_pro', 'usage history --account acct_demo_pro --days 7 --json'],
    async run(ctx, values) {
      const days = values.days === undefined ? undefined : positiveInt('days', str(values, 'days'));
      if (days !== undefined && days > MAX_HISTORY_DAYS) {
        throw usageError(`--days must be from 1 to ${MAX_HISTORY_DAYS}, got ${days}`);
      }
      const history = await ctx.client.usageHistory(str(values, 'account'), days);
      ctx.output(history, usageHistoryText(history));
    },
  },
  {
    words: ['dlq', 'redrive'],
    summary: 'Move the dead-lettered messages back to the messages queue (SQS StartMessageMoveTask; deployed stack only)',
    options: {},
    required: [],
    flags: [['--stack NAME | --outputs FILE', 'the deployed API stack (one of the two is needed)']],
    examples: ['dlq redrive --stack MessagesPlatform-Api --region eu-west-1', 'dlq redrive --outputs cdk-outputs.json'],
    async run(ctx) {
      const stack = ctx.deployed();
      if (!stack) {
        throw new CliError('dlq redrive works on a deployed stack: give --stack or --outputs', {
          code: 'not_supported',
          hint: 'locally, the fault tests call redriveDeadLetters() of the local platform (local/platform.ts)',
        });
      }
      const { startRedrive } = await import('./dlq-redrive.js');
      const task = await startRedrive(stack);
      ctx.output(
        task,
        `Started moving ${task.messages} message${task.messages === 1 ? '' : 's'} from ${task.sourceArn} to ${task.destinationArn} (task ${task.taskHandle}).\n` +
        'The worker processes each one; its record goes from failed to processed.\n',
      );
    },
  }, {
    words: ['projects', 'create'],
    summary: 'Create a project, served at <slug>.<platform domain> once deployed',
    options: { account: { type: 'string' }, slug: { type: 'string' }, name: { type: 'string' } },
    required: ['account', 'slug'],
    flags: [
      ['--account ID', 'the account id'],
      ['--slug SLUG', '3 to 40 lower-case letters, digits or hyphens; unique platform-wide'],
      ['--name NAME', 'a display name (default: the slug)'],
    ],
    examples: ['projects create --account acct_demo_pro --slug my-site --name "My site"'],
    localOnly: true,
    async run(ctx, values) {
      const name = values.name as string | undefined;
      const project = await ctx.projects().createProject(str(values, 'account'), { slug: str(values, 'slug'), ...(name !== undefined ? { name } : {}) });
      ctx.output(project, `Created project ${project.projectId}. Deploy it with: ${PROGRAM} projects deploy <dir> --account ${project.accountId} --project ${project.projectId}\n${projectText(project)}`);
    },
  },
  {
    words: ['projects', 'list'],
    summary: 'List the projects of an account',
    options: { account: { type: 'string' } },
    required: ['account'],
    flags: [['--account ID', 'the account id']],
    examples: ['projects list --account acct_demo_pro'],
    localOnly: true,
    async run(ctx, values) {
      const projects = await ctx.projects().listProjects(str(values, 'account'));
      ctx.output({ projects }, projectsTable(projects));
    },
  },
  {
    words: ['projects', 'show'],
    summary: 'Show a project: deploy state, live deploy, default URL, domain configuration',
    options: PROJECT_OPTIONS,
    required: PROJECT_REQUIRED,
    flags: PROJECT_FLAGS,
    examples: ['projects show --account acct_demo_pro --project prj_0123456789abcdef0123'],
    localOnly: true,
    async run(ctx, values) {
      const project = await ctx.projects().getProject(...ids(values));
      ctx.output(project, projectText(project));
    },
  },
  {
    words: ['projects', 'deploy'],
    summary: 'Deploy a folder of static files; it goes live only once every file is stored',
    args: [['DIR', 'the folder of the site: every file under it, except dotfiles and dot-directories (.git…)']],
    options: PROJECT_OPTIONS,
    required: PROJECT_REQUIRED,
    flags: PROJECT_FLAGS,
    examples: ['projects deploy ./dist --account acct_demo_pro --project prj_0123456789abcdef0123'],
    localOnly: true,
    async run(ctx, values, [dir]) {
      const site = await readSite(dir as string);
      ctx.io.stderr.write(`Uploading ${site.files.length} file${site.files.length === 1 ? '' : 's'} (${byteCount(site.bytes)}) from ${clean(dir as string)}…\n`);
      const project = await ctx.projects().deploy(...ids(values), site.files);
      ctx.output(project, `Deployed ${project.liveDeployId ?? ''}: ${site.files.length} files, live at ${project.url}\n${projectText(project)}`);
    },
  },
  {
    words: ['domains', 'add'],
    summary: 'Add a custom domain (Pro plan or above, after a deploy); shows the DNS records to set',
    args: [['DOMAIN', 'the domain, e.g. www.example.com (an apex such as example.com needs ALIAS/ANAME)']],
    options: PROJECT_OPTIONS,
    required: PROJECT_REQUIRED,
    flags: PROJECT_FLAGS,
    examples: ['domains add www.example.com --account acct_demo_pro --project prj_0123456789abcdef0123'],
    localOnly: true,
    async run(ctx, values, [domain]) {
      const [accountId, projectId] = ids(values);
      const added = await ctx.projects().addDomain(accountId, projectId, domain as string);
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
    options: PROJECT_OPTIONS,
    required: PROJECT_REQUIRED,
    flags: PROJECT_FLAGS,
    examples: ['domains list --account acct_demo_pro --project prj_0123456789abcdef0123', 'domains list --account acct_demo_pro --project prj_0123456789abcdef0123 --json'],
    localOnly: true,
    async run(ctx, values) {
      const domains = await ctx.projects().listDomains(...ids(values));
      ctx.output({ domains }, domainsTable(domains));
    },
  },
  {
    words: ['domains', 'verify'],
    summary: 'Verify a domain: DNS check, then the certificate, then active',
    args: [['DOMAIN', 'a domain of the project']],
    options: { ...PROJECT_OPTIONS, wait: { type: 'string' } },
    required: PROJECT_REQUIRED,
    flags: [...PROJECT_FLAGS, WAIT_FLAG],
    examples: [
      'domains verify www.example.com --account acct_demo_pro --project prj_0123456789abcdef0123 --wait',
      'domains verify www.example.com --account acct_demo_pro --project prj_0123456789abcdef0123 --wait 300 --json',
    ],
    localOnly: true,
    run: (ctx, values, [domain]) => verifyCommand(ctx, values, domain as string, false),
  },
  {
    words: ['domains', 'reverify'],
    summary: 'Re-verify a domain: a fresh attempt once DNS or CAA is fixed',
    args: [['DOMAIN', 'a domain of the project']],
    options: { ...PROJECT_OPTIONS, wait: { type: 'string' } },
    required: PROJECT_REQUIRED,
    flags: [...PROJECT_FLAGS, WAIT_FLAG],
    examples: ['domains reverify www.example.com --account acct_demo_pro --project prj_0123456789abcdef0123 --wait 120'],
    localOnly: true,
    run: (ctx, values, [domain]) => verifyCommand(ctx, values, domain as string, true),
  },
  {
    words: ['domains', 'remove'],
    summary: 'Remove a domain: the edge refuses it from the next request on',
    args: [['DOMAIN', 'a domain of the project']],
    options: PROJECT_OPTIONS,
    required: PROJECT_REQUIRED,
    flags: PROJECT_FLAGS,
    examples: ['domains remove old.example.com --account acct_demo_pro --project prj_0123456789abcdef0123'],
    localOnly: true,
    async run(ctx, values, [domain]) {
      const [, projectId] = ids(values);
      const removed = await ctx.projects().removeDomain(...ids(values), domainArg(domain as string));
      if (removed.warning) ctx.io.stderr.write(`warning: ${clean(removed.warning)}\n`);
      ctx.output(removed, `Removed ${removed.domain} from project ${projectId}: it is no longer served.\n`);
    },
  },
  {
    words: ['domains', 'check-drift'],
    summary: 'Re-check every live domain\'s DNS now (operators; it also runs on a schedule)',
    options: {},
    required: [],
    flags: [],
    examples: ['domains check-drift', 'domains check-drift --json'],
    localOnly: true,
    async run(ctx) {
      const started = await ctx.projects().checkDomainDrift();
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
    options: PROJECT_OPTIONS,
    required: PROJECT_REQUIRED,
    flags: PROJECT_FLAGS,
    examples: ['domains config set-primary www.example.com --account acct_demo_pro --project prj_0123456789abcdef0123'],
    localOnly: true,
    async run(ctx, values, [domain]) {
      const config = await ctx.projects().setPrimaryDomain(...ids(values), domainArg(domain as string));
      ctx.output(config, `The primary domain is ${config.primary}.\n${configText(config)}`);
    },
  },
  {
    words: ['domains', 'config', 'add-redirect'],
    summary: 'Redirect a domain to another of the project (path and query kept)',
    options: { ...PROJECT_OPTIONS, from: { type: 'string' }, to: { type: 'string' }, status: { type: 'string' } },
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
    localOnly: true,
    async run(ctx, values) {
      const status = redirectStatusFlag(values);
      const from = domainArg(str(values, 'from'));
      const to = domainArg(str(values, 'to'));
      const redirect = { from, to, ...(status !== undefined ? { status } : {}) };
      const config = await ctx.projects().addRedirect(...ids(values), redirect);
      const added = config.redirects.find((r) => r.from === from);
      ctx.output(config, `${from} redirects to ${to} (${added?.status ?? status ?? 301}).\n${configText(config)}`);
    },
  },
  {
    words: ['domains', 'config', 'remove-redirect'],
    summary: 'Remove the redirect of a domain',
    options: { ...PROJECT_OPTIONS, from: { type: 'string' } },
    required: [...PROJECT_REQUIRED, 'from'],
    flags: [...PROJECT_FLAGS, ['--from DOMAIN', 'the domain whose redirect goes']],
    examples: ['domains config remove-redirect --from old.example.com --account acct_demo_pro --project prj_0123456789abcdef0123'],
    localOnly: true,
    async run(ctx, values) {
      const from = domainArg(str(values, 'from'));
      const config = await ctx.projects().removeRedirect(...ids(values), from);
      ctx.output(config, `${from} no longer redirects.\n${configText(config)}`);
    },
  },
];

/** Whether `prefix` is the start of `words`. */
const startsWith = (words: readonly string[], prefix: readonly string[]) => prefix.every((w, i) => words[i] === w);

/** The next words after a group (`keys` → create, list, revoke; `domains` → …, config). */
const subcommands = (group: readonly string[]): string[] => {
  const below = COMMANDS.filter((c) => c.words.length > group.length && startsWith(c.words, group));
  return [...new Set(below.map((c) => c.words[group.length] as string))];
};

const GLOBAL_FLAGS_HELP = `Global flags:
  --json              machine output: exactly one JSON document on stdout (errors too)
  --url URL           the local control-plane API (default $PLATFORM_CONTROL_URL or ${DEFAULT_CONTROL_URL})
  --stack NAME        a deployed stack instead: the API stack's outputs by CloudFormation (default name MessagesPlatform-Api)
  --outputs FILE      a deployed stack instead: the file of cdk deploy --outputs-file
  --region REGION     with --stack/--outputs (default $AWS_REGION, $AWS_DEFAULT_REGION, your AWS profile's;
                      with --outputs, else the deployment's own platform.region)
  -h, --help          help; after a command, that command's help`;

function globalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.words.join(' ').length));
  return `Operator CLI of the Messages Platform: accounts, plans, API keys, bans and usage; projects,
deploys and custom domains.

Usage: ${PROGRAM} <command> [flags]

Commands:
${COMMANDS.map((c) => `  ${c.words.join(' ').padEnd(width)}  ${c.summary}`).join('\n')}

${GLOBAL_FLAGS_HELP}

By default the CLI talks to the local platform (npm start). With --stack or --outputs it works on a
deployed stack directly (DynamoDB and API Gateway), with your AWS credentials and the deployment's
own config (its PlatformConfig output: plans, limits, backstops). Projects and domains are local
only: on AWS owners manage them in the dashboard (output DashboardUrl).

Exit codes: 0 success, 1 refused by the control plane or a network/AWS failure, 2 usage error.

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

function groupHelp(group: readonly string[]): string {
  const name = group.join(' ');
  const commands = COMMANDS.filter((c) => startsWith(c.words, group));
  const width = Math.max(...commands.map((c) => c.words.join(' ').length));
  return `Usage: ${PROGRAM} ${name} <${subcommands(group).join('|')}> [flags]

${commands.map((c) => `  ${c.words.join(' ').padEnd(width)}  ${c.summary}`).join('\n')}

Run "${PROGRAM} ${name} <command> --help" for a command's flags.
`;
}

function commandUsage(command: Command): string {
  const flags = command.flags.map(([flag]) => {
    const name = flag.split(' ')[0]?.slice(2) ?? '';
    return command.required.includes(name) ? flag : `[${flag}]`;
  });
  const args = (command.args ?? []).map(([arg]) => arg);
  return `${PROGRAM} ${[...command.words, ...args, ...flags].join(' ')} [--json]`;
}

function commandHelp(command: Command): string {
  const args = command.args ?? [];
  const width = Math.max(...command.flags.map(([flag]) => flag.length), ...args.map(([arg]) => arg.length));
  const argsHelp = args.length > 0 ? `Arguments:\n${args.map(([arg, meaning]) => `  ${arg.padEnd(width)}  ${meaning}`).join('\n')}\n\n` : '';
  const localNote = command.localOnly
    ? '\nLocal platform only: on AWS, projects and domains are managed through the dashboard\'s control-plane API.\n'
    : '';
  return `${command.summary}.

Usage: ${commandUsage(command)}
${localNote}
${argsHelp}Flags:
${command.flags.map(([flag, meaning]) => `  ${flag.padEnd(width)}  ${meaning}`).join('\n')}

${GLOBAL_FLAGS_HELP}

Examples:
${command.examples.map((e) => `  ${PROGRAM} ${e}`).join('\n')}
`;
}

/**
 * The command named by the leading positionals (the one with the most words that match), a group
 * of commands (`keys`, `domains config`) when the positionals stop there, or a usage error.
 */
function findCommand(positionals: readonly string[]): { command?: Command; group?: readonly string[] } {
  if (positionals.length === 0) return {};
  let command: Command | undefined;
  for (const c of COMMANDS) {
    if (startsWith(positionals, c.words) && (!command || c.words.length > command.words.length)) command = c;
  }
  if (command) return { command };

  let depth = 0;
  while (depth < positionals.length && subcommands(positionals.slice(0, depth + 1)).length > 0) depth++;
  if (depth === 0) throw usageError(`unknown command "${clean(positionals[0] as string)}"`, `run "${PROGRAM} --help" for the commands`);
  const group = positionals.slice(0, depth);
  if (positionals.length === depth) return { group };
  const name = group.join(' ');
  throw usageError(
    `unknown command "${clean([...group, positionals[depth] as string].join(' '))}"; ${name} has: ${subcommands(group).join(', ')}`,
    `run "${PROGRAM} ${name} --help"`,
  );
}

/**
 * `--wait` takes an optional number of seconds: alone (not followed by a number) it means the
 * default, so `--wait` and `--wait 90` both work.
 */
function withWaitDefault(argv: readonly string[]): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      args.push(...argv.slice(i));
      break;
    }
    args.push(arg === '--wait' && !/^\d+$/.test(argv[i + 1] ?? '') ? `--wait=${DEFAULT_WAIT_SECONDS}` : arg);
  }
  return args;
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
  /** Projects and domains: the local control-plane API only. */
  readonly projects?: ProjectsClient;
  /** With --stack/--outputs: the deployment's API stack (outputs, region). */
  readonly deployed?: DeployedStack;
  close(): void;
}

const AWS_PROJECTS_MESSAGE =
  'projects and domains of a deployed stack are managed by their owners in the dashboard (output DashboardUrl of <stackPrefix>-Dashboard)';

async function openBackend(values: Values, env: CliIo['env'], localOnly = false): Promise<Backend> {
  const url = values.url as string | undefined;
  const stack = values.stack as string | undefined;
  const outputs = values.outputs as string | undefined;
  const region = values.region as string | undefined;
  const deployed = stack !== undefined || outputs !== undefined;
  if (url !== undefined && deployed) throw usageError('--url is for the local platform; --stack/--outputs for a deployed stack: give one or the other');
  if (region !== undefined && !deployed) throw usageError('--region goes with --stack or --outputs');
  if (deployed && localOnly) {
    throw new CliError(AWS_PROJECTS_MESSAGE, {
      code: 'not_supported',
      hint: 'against the local platform (npm start), drop --stack/--outputs (or pass --url)',
    });
  }

  if (deployed) {
    // Loaded only for a deployed stack: the AWS SDK clients are not needed locally.
    const { createAwsControlPlane } = await import('./aws-control-plane.js');
    const aws = await createAwsControlPlane({
      ...(stack !== undefined ? { stack } : {}),
      ...(outputs !== undefined ? { outputsFile: outputs } : {}),
      ...(region !== undefined ? { region } : {}),
      env,
    });
    return { client: aws.client, deployed: aws.stack, close: () => aws.close() };
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
  const client = new HttpControlPlaneClient(baseUrl);
  return { client, projects: client, close: () => {} };
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
  const args = withWaitDefault(argv);
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
        const name = group.join(' ');
        throw usageError(`${name} needs a command: ${subcommands(group).join(', ')}`, `run "${PROGRAM} ${name} --help"`);
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
    const expected = command.args ?? [];
    const given = parsed.positionals.slice(command.words.length);
    const extra = given.slice(expected.length);
    if (extra.length > 0) throw usageError(`unexpected argument "${clean(extra[0] as string)}" for ${where}`, `usage: ${commandUsage(command)}`);
    const values = parsed.values as Values;
    const missingArg = expected[given.length];
    if (missingArg) throw usageError(`${where} needs ${missingArg[0]}`, `usage: ${commandUsage(command)}`);
    for (const name of command.required) {
      if (values[name] === undefined) throw usageError(`${where} needs --${name}`, `usage: ${commandUsage(command)}`);
    }

    const backend = await openBackend(values, io.env, command.localOnly === true);
    for (const warning of backend.deployed?.warnings ?? []) io.stderr.write(`warning: ${clean(warning)}\n`);
    let exitCode = 0;
    try {
      let written = false;
      const ctx: Context = {
        client: backend.client,
        json,
        io,
        projects() {
          if (!backend.projects) throw new CliError(AWS_PROJECTS_MESSAGE, { code: 'not_supported' });
          return backend.projects;
        },
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
