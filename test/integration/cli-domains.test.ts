import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { DomainConfig, DomainView, ProjectView } from '../../cli/operator-client.js';
import { startTestDns, type TestDnsServer } from '../support/dns-server.js';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.js';

// The operator CLI's projects and domains commands (npm run platform -- projects …, domains …),
// in process through run(), against the local platform's control API, with the domain flow
// resolving names on a test DNS server.

const HOST = 'edge.platform.example.com';
/** A domain's own target under the platform host, as a pattern. */
const TARGET = '[a-z2-7]{26}\\.edge\\.platform\\.example\\.com';
let dns: TestDnsServer;
let platform: TestPlatform;
let accountId: string;
let projectId: string;
const temp = mkdtempSync(join(tmpdir(), 'cli-domains-'));

const cliWith = (argv: readonly string[]) => runCli(argv);

const cli = (...argv: string[]) => cliWith([...argv, '--url', platform.controlUrl]);

async function json<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
  const out = await cli(...argv, '--json');
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as T;
}

/** Points the domain's CNAME at its own target, read from the platform as an owner would from the CLI. */
async function pointAtTarget(domain: string): Promise<string> {
  const view = await json<DomainView>('domains', 'list', ...ids()).then((l) => (l as unknown as { domains: DomainView[] }).domains.find((d) => d.domain === domain));
  if (!view) throw new Error(`${domain} is not listed`);
  dns.set(domain, { CNAME: view.target });
  return view.target;
}

/** `--account … --project …` of the project under test. */
const ids = () => ['--account', accountId, '--project', projectId];

/** A request to the local edge with a Host header. */
function edge(host: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${platform.edgeUrl}${path}`, { headers: { Host: host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A site folder: two files (one nested) plus a .git directory and a dotfile that stay out. */
function siteDir(): string {
  const dir = join(temp, 'site');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  mkdirSync(join(dir, '.git'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), '<h1>cli site</h1>');
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log("hi");');
  writeFileSync(join(dir, '.env'), 'SECRET=1');
  writeFileSync(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main');
  return dir;
}

beforeAll(async () => {
  dns = await startTestDns({
    [HOST]: { A: ['198.51.100.10'] },
    [`*.${HOST}`]: { A: ['198.51.100.10'] },
    'blocked.test': { CAA: [{ flags: 0, tag: 'issue', value: 'letsencrypt.org' }] },
  });
  platform = await startTestPlatform({ dnsServers: [dns.address], domainFlow: { pollMs: 20 } });
  accountId = platform.demoAccounts.pro.accountId;
});
afterAll(async () => {
  await platform?.stop();
  await dns?.stop();
  rmSync(temp, { recursive: true, force: true });
});

describe('projects', () => {
  it('projects create prints the project; --json the project document', async () => {
    const human = await cli('projects', 'create', '--account', accountId, '--slug', 'cli-site', '--name', 'CLI site');
    expect(human.code, human.stderr).toBe(0);
    projectId = /^Created project (prj_\w+)\./.exec(human.stdout)?.[1] as string;
    expect(projectId).toBeDefined();
    expect(human.stdout).toMatch(/^deploy state +none$/m);
    expect(human.stdout).toMatch(/^url +https:\/\/cli-site\.platform\.example\.com\/ \(served after the first successful deploy\)$/m);

    const other = await json<ProjectView>('projects', 'create', '--account', accountId, '--slug', 'cli-other');
    expect(other).toMatchObject({ slug: 'cli-other', name: 'cli-other', deployState: 'none', accountId });
  });

  it('projects list shows the account\'s projects, as a table or {projects}', async () => {
    const human = await cli('projects', 'list', '--account', accountId);
    expect(human.code).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +SLUG +NAME +DEPLOY +LIVE DEPLOY +URL +CREATED$/);
    expect(lines.find((l) => l.startsWith(projectId))).toMatch(/ cli-site +CLI site +none +- +https:\/\/cli-site\.platform\.example\.com\/ /);
    const listed = await json<{ projects: ProjectView[] }>('projects', 'list', '--account', accountId);
    expect(listed.projects.map((p) => p.slug).sort()).toEqual(['cli-other', 'cli-site']);
  });

  it('projects deploy <dir> uploads every file (nested ones with POSIX paths, dotfiles left out); the project is served', async () => {
    const dir = siteDir();
    const human = await cli('projects', 'deploy', dir, ...ids());
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toMatch(/^Deploying 2 files \(35 B\) from .*\nUploaded 2 files \(35 B\); 0 unchanged skipped\.$/m);
    expect(human.stdout).toMatch(/^Deployed dep_\w+: 2 files, live at https:\/\/cli-site\.platform\.example\.com\/\n/);
    expect(human.stdout).toMatch(/^deploy state +succeeded$/m);

    const index = await edge('cli-site.platform.example.com', '/');
    expect(index).toMatchObject({ status: 200, body: '<h1>cli site</h1>' });
    expect((await edge('cli-site.platform.example.com', '/assets/app.js')).body).toBe('console.log("hi");');
    expect((await edge('cli-site.platform.example.com', '/.env')).status).toBe(404);

    // Again, unchanged: nothing is uploaded, the new deploy is live.
    const deployed = await json<ProjectView & { uploadedFiles: number; skipped: number }>('projects', 'deploy', dir, ...ids());
    expect(deployed).toMatchObject({ deployState: 'succeeded', lastDeploy: { state: 'succeeded', fileCount: 2, bytes: 35, uploadCount: 0 } });
    expect(deployed).toMatchObject({ uploadedFiles: 0, skipped: 2 });
    expect(deployed.liveDeployId).toBe(deployed.lastDeploy?.deployId);
  });

  it('projects show: deploy state, live deploy, default URL and domain configuration', async () => {
    const human = await cli('projects', 'show', ...ids());
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^deploy state +succeeded$/m);
    expect(human.stdout).toMatch(/^live deploy +dep_\w+$/m);
    expect(human.stdout).toMatch(/^last deploy +dep_\w+ succeeded \S+ \(2 files, 35 B, by operator\)$/m);
    expect(human.stdout).toMatch(/^url +https:\/\/cli-site\.platform\.example\.com\/$/m);
    expect(human.stdout).toMatch(/^primary +cli-site\.platform\.example\.com$/m);
    expect(human.stdout).toMatch(/^redirects +none$/m);
    const shown = await json<ProjectView>('projects', 'show', ...ids());
    expect(shown).toMatchObject({ projectId, deployState: 'succeeded', defaultDomain: 'cli-site.platform.example.com' });
  });

  it('projects deploys lists the history; rollback serves an earlier deploy; rename keeps the slug', async () => {
    const history = await json<{ deploys: Array<{ deployId: string; live: boolean }> }>('projects', 'deploys', ...ids());
    expect(history.deploys).toHaveLength(2);
    const [latest, first] = history.deploys;
    expect(latest?.live).toBe(true);
    const table = await cli('projects', 'deploys', ...ids());
    expect(table.stdout).toMatch(/^ID +STATE +LIVE +STARTED +BY +FILES +SIZE +UPLOADED$/m);
    const rolled = await cli('projects', 'rollback', first?.deployId ?? '', ...ids());
    expect(rolled.code, rolled.stderr).toBe(0);
    expect(rolled.stdout).toMatch(new RegExp(`^Serving ${first?.deployId ?? ''} \\(2 files`));
    expect((await json<ProjectView>('projects', 'show', ...ids())).liveDeployId).toBe(first?.deployId);
    const renamed = await json<ProjectView>('projects', 'rename', ...ids(), '--name', 'CLI site');
    expect(renamed).toMatchObject({ name: 'CLI site', slug: 'cli-site' });
  });

  it('refuses a missing, an empty or a non-directory folder, and a symlink leaving it (exit 2)', async () => {
    const missing = await cli('projects', 'deploy', join(temp, 'nope'), ...ids(), '--json');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: no directory .*nope\n/);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: 'usage', exitCode: 2 } });

    const empty = join(temp, 'empty');
    mkdirSync(join(empty, '.git'), { recursive: true });
    writeFileSync(join(empty, '.git', 'HEAD'), 'x');
    const none = await cli('projects', 'deploy', empty, ...ids());
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('has no files to deploy (dotfiles and dot-directories are left out)');

    const file = await cli('projects', 'deploy', join(temp, 'site', 'index.html'), ...ids());
    expect(file.code).toBe(2);
    expect(file.stderr).toContain('is not a directory');

    const leaking = join(temp, 'leaking');
    mkdirSync(leaking);
    writeFileSync(join(leaking, 'index.html'), 'x');
    writeFileSync(join(temp, 'outside.txt'), 'secret');
    symlinkSync(join(temp, 'outside.txt'), join(leaking, 'outside.txt'));
    const leak = await cli('projects', 'deploy', leaking, ...ids());
    expect(leak.code).toBe(2);
    expect(leak.stderr).toMatch(/^error: outside\.txt in .* is a symbolic link to .*outside\.txt, outside the folder/);
  });

  it('an unknown project: exit 1 with the platform\'s message; --json has its code', async () => {
    const human = await cli('projects', 'show', '--account', accountId, '--project', 'prj_nope');
    expect(human).toMatchObject({ code: 1, stdout: '' });
    expect(human.stderr).toBe(`error: No project prj_nope in account ${accountId}.\n`);
    const out = await cli('domains', 'list', '--account', accountId, '--project', 'prj_nope', '--json');
    expect(out.code).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({ error: { code: 'project_not_found', status: 404, exitCode: 1 } });
  });
});

describe('domains', () => {
  it('domains add shows the DNS records to set as a table', async () => {
    const human = await cli('domains', 'add', 'WWW.cli.test.', ...ids());
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`Added www.cli.test to project ${projectId} (state pending_dns).`);
    expect(human.stdout).toMatch(/^TYPE +HOST +VALUE +TTL$/m);
    expect(human.stdout).toMatch(new RegExp(`^CNAME +www +${TARGET} +3600$`, 'm'));
    expect(human.stdout).toContain(`domains verify www.cli.test --account ${accountId} --project ${projectId} --wait`);
    await pointAtTarget('www.cli.test');

    const added = await json<{ domain: DomainView; records: unknown[] }>('domains', 'add', 'old.cli.test', ...ids());
    expect(added.domain).toMatchObject({ domain: 'old.cli.test', state: 'pending_dns', apex: false, target: expect.stringMatching(new RegExp(`^${TARGET}$`)) });
    expect(added.records).toEqual([{ type: 'CNAME', purpose: 'routing', host: 'old', fqdn: 'old.cli.test', value: added.domain.target, ttl: 3600 }]);
    dns.set('old.cli.test', { CNAME: added.domain.target });
  });

  it('an apex shows the ALIAS record beside the ownership TXT record, each with its note', async () => {
    const out = await cli('domains', 'add', 'cli.test', ...ids());
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('Set these DNS records for cli.test at your DNS provider');
    expect(out.stdout).toMatch(new RegExp(`^ALIAS +@ +${TARGET} +3600$`, 'm'));
    expect(out.stdout).toMatch(/^TXT +_platform-verify +platform-verify=[a-z2-7]{26} +3600$/m);
    expect(out.stdout).toMatch(/^Note \(ALIAS\): An apex cannot have a CNAME\. .*not every provider supports them/m);
    expect(out.stdout).toMatch(/^Note \(TXT\): An ALIAS\/ANAME record cannot be told apart from anyone else's by its addresses/m);
  });

  it('domains verify --wait follows the flow to active', async () => {
    const human = await cli('domains', 'verify', 'www.cli.test', ...ids(), '--wait');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toMatch(/^Verification of www\.cli\.test started \(attempt 1\)\. Waiting up to 60 s…\n/);
    expect(human.stdout).toMatch(/^state +active$/m);

    const verified = await json<DomainView>('domains', 'verify', 'old.cli.test', ...ids(), '--wait', '20');
    expect(verified).toMatchObject({ domain: 'old.cli.test', state: 'active', attempt: 1 });
  });

  it('domains verify without --wait answers at once; a DNS failure under --wait shows observed vs expected and exits 1', async () => {
    const started = await cli('domains', 'verify', 'cli.test', ...ids());
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/^Verification of cli\.test started \(attempt 1\)\.\n/);
    expect(started.stdout).toMatch(/^state +verifying$/m);

    const failed = await cli('domains', 'reverify', 'cli.test', ...ids(), '--wait', '20');
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^state +dns_failed$/m);
    expect(failed.stdout).toMatch(/^reason +record_not_found$/m);
    expect(failed.stdout).toMatch(/^observed +nothing$/m);
    expect(failed.stdout).toMatch(new RegExp(`^expected +${TARGET}$`, 'm'));
    expect(failed.stdout).toMatch(new RegExp(`^record +ALIAS cli\\.test ${TARGET}$`, 'm'));
    expect(failed.stdout).toMatch(/^record +TXT _platform-verify\.cli\.test platform-verify=[a-z2-7]{26}$/m);
    expect(failed.stdout).toMatch(/^detail +No ALIAS\/ANAME record was found for cli\.test\./m);
    expect(failed.stderr).toContain('error: cli.test did not verify: record_not_found\nhint: ');

    const document = await cli('domains', 'reverify', 'cli.test', ...ids(), '--wait', '20', '--json');
    expect(document.code).toBe(1);
    const failure = JSON.parse(document.stdout) as DomainView;
    expect(failure).toMatchObject({ state: 'dns_failed', failure: { reason: 'record_not_found', expected: failure.target } });
  });

  it('domains show: one domain\'s state, target and records, as its owner sees it', async () => {
    const listed = await json<{ domains: DomainView[] }>('domains', 'list', ...ids());
    const shown = await json<{ domain: DomainView }>('domains', 'show', 'WWW.cli.test.', ...ids());
    expect(shown.domain).toEqual(listed.domains.find((d) => d.domain === 'www.cli.test'));
    const human = await cli('domains', 'show', 'www.cli.test', ...ids());
    expect(human.stdout).toMatch(new RegExp(`^state +${shown.domain.state}$`, 'm'));
    expect(human.stdout).toContain(shown.domain.target);
    expect((await cli('domains', 'show', 'nope.cli.test', ...ids())).code).toBe(1);
  });

  it('domains list shows each domain and its state', async () => {
    const human = await cli('domains', 'list', ...ids());
    expect(human.code).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^DOMAIN +STATE +REASON +TARGET +ACTIVE SINCE +UPDATED$/);
    expect(lines.find((l) => l.startsWith('www.cli.test '))).toMatch(new RegExp(` active +- +${TARGET} +\\d{4}-`));
    expect(lines.find((l) => l.startsWith('cli.test '))).toMatch(new RegExp(` dns_failed +record_not_found +${TARGET} +- `));
    const listed = await json<{ domains: DomainView[] }>('domains', 'list', ...ids());
    // The test clock stands still: the three were added at the same instant, in no set order.
    expect(listed.domains.map((d) => `${d.domain} ${d.state}`).sort()).toEqual(['cli.test dns_failed', 'old.cli.test active', 'www.cli.test active']);
  });

  it('domains config: add-redirect, set-primary, remove-redirect', async () => {
    const redirect = await cli('domains', 'config', 'add-redirect', '--from', 'old.cli.test', '--to', 'www.cli.test', ...ids());
    expect(redirect.code, redirect.stderr).toBe(0);
    expect(redirect.stdout).toMatch(/^old\.cli\.test redirects to www\.cli\.test \(301\)\.\n/);
    expect(redirect.stdout).toMatch(/^redirect +old\.cli\.test → www\.cli\.test \(301\)$/m);
    const moved = await edge('old.cli.test', '/a/b?x=1');
    expect(moved.status).toBe(301);

    const temporary = await json<DomainConfig>('domains', 'config', 'add-redirect', '--from', 'old.cli.test', '--to', 'www.cli.test', '--status', '302', ...ids());
    expect(temporary.redirects).toEqual([{ from: 'old.cli.test', to: 'www.cli.test', status: 302 }]);

    const primary = await cli('domains', 'config', 'set-primary', 'www.cli.test', ...ids());
    expect(primary.code, primary.stderr).toBe(0);
    expect(primary.stdout).toMatch(/^The primary domain is www\.cli\.test\.\n/);
    expect(await json<DomainConfig>('domains', 'config', 'set-primary', 'www.cli.test', ...ids())).toMatchObject({ primary: 'www.cli.test' });
    expect(await json<ProjectView>('projects', 'show', ...ids())).toMatchObject({ domains: { primary: 'www.cli.test' } });

    const loop = await cli('domains', 'config', 'add-redirect', '--from', 'www.cli.test', '--to', 'old.cli.test', ...ids(), '--json');
    expect(loop.code).toBe(1);
    expect(JSON.parse(loop.stdout)).toMatchObject({ error: { code: 'invalid_config', status: 400 } });

    const badStatus = await cli('domains', 'config', 'add-redirect', '--from', 'old.cli.test', '--to', 'www.cli.test', '--status', '303', ...ids());
    expect(badStatus.code).toBe(2);
    expect(badStatus.stderr).toMatch(/^error: --status must be one of 301, 302, 307, 308, got "303"\n/);

    const removed = await cli('domains', 'config', 'remove-redirect', '--from', 'old.cli.test', ...ids());
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/^old\.cli\.test no longer redirects\.\n/);
    expect(removed.stdout).toMatch(/^redirects +none$/m);
    expect(await json<DomainConfig>('domains', 'config', 'add-redirect', '--from', 'old.cli.test', '--to', 'www.cli.test', ...ids())).toMatchObject({
      redirects: [{ from: 'old.cli.test', to: 'www.cli.test', status: 301 }],
    });
    expect(await json<DomainConfig>('domains', 'config', 'remove-redirect', '--from', 'old.cli.test', ...ids())).toEqual({ primary: 'www.cli.test', redirects: [] });
  });

  it('domains check-drift starts the check; a domain pointed elsewhere then shows dns_misconfigured with what to do', async () => {
    const target = await pointAtTarget('www.cli.test');
    dns.set('www.cli.test', { CNAME: 'elsewhere.example.net' });
    const started = await cli('domains', 'check-drift');
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toMatch(/^Started the drift check of every live domain \(execution drift-now-[0-9a-z]+-\d+, \d{4}-\d\d-\d\dT/);
    await platform.domainFlow.settle();
    const detachAt = new Date(platform.clock.now() + 7 * 24 * 60 * 60 * 1000).toISOString();
    const human = await cli('domains', 'list', ...ids());
    expect(human.stdout.split('\n').find((l) => l.startsWith('www.cli.test '))).toMatch(/ dns_misconfigured +cname_mismatch /);
    const reverify = await cli('domains', 'reverify', 'www.cli.test', ...ids(), '--wait', '20');
    expect(reverify.code).toBe(1);
    expect(reverify.stdout).toMatch(/^state +dns_misconfigured$/m);
    expect(reverify.stdout).toMatch(/^observed +CNAME elsewhere\.example\.net$/m);
    expect(reverify.stdout).toMatch(new RegExp(`^served until +${detachAt.replace(/\./g, '\\.')} \\(then detached, unless the DNS is fixed first\\)$`, 'm'));
    expect(reverify.stderr).toContain(`error: www.cli.test is dns_misconfigured: cname_mismatch\nhint: it is still served until ${detachAt}`);
    expect((await edge('www.cli.test', '/')).status).toBe(200);

    dns.set('www.cli.test', { CNAME: target });
    expect(JSON.parse((await cli('domains', 'check-drift', '--json')).stdout)).toMatchObject({ execution: expect.stringMatching(/^drift-now-/) });
    await platform.domainFlow.settle();
    expect(await json<DomainView>('domains', 'reverify', 'www.cli.test', ...ids(), '--wait', '20')).toMatchObject({ state: 'active' });
  });

  it('domains remove stops serving at once; the warning for a live domain without a redirect goes to stderr', async () => {
    expect((await edge('old.cli.test', '/')).status).toBe(200);
    const human = await cli('domains', 'remove', 'old.cli.test', ...ids());
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toBe(`Removed old.cli.test from project ${projectId}: it is no longer served.\n`);
    expect(human.stderr).toMatch(/^warning: old\.cli\.test is live and has no redirect/);
    expect((await edge('old.cli.test', '/')).status).not.toBe(200);

    const removed = await cli('domains', 'remove', 'cli.test', ...ids(), '--json');
    expect(removed.code).toBe(0);
    expect(removed.stderr).toBe('');
    expect(JSON.parse(removed.stdout)).toEqual({ domain: 'cli.test', removed: true });

    const again = await cli('domains', 'remove', 'cli.test', ...ids(), '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ error: { code: 'domain_not_found', status: 404 } });
  });

  it('domains verify --wait prints the certificate_delayed diagnosis (CAA blocks Amazon) and exits 1', async () => {
    expect((await cli('domains', 'add', 'www.blocked.test', ...ids())).code).toBe(0);
    await pointAtTarget('www.blocked.test');
    const waiting = cli('domains', 'verify', 'www.blocked.test', ...ids(), '--wait', '20');
    await eventually(async () => {
      const domain = await platform.domains.get(accountId, projectId, 'www.blocked.test');
      return domain.state === 'issuing_certificate' ? domain : undefined;
    }, 10_000, 20);
    platform.clock.advance(31 * 60_000); // past the 30-minute watchdog
    const out = await waiting;
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/^state +certificate_delayed$/m);
    expect(out.stdout).toMatch(/^dns +still verifies$/m);
    expect(out.stdout).toMatch(/^caa +blocks Amazon's certificate authority: blocked\.test CAA 0 issue "letsencrypt\.org" \(found at blocked\.test\)$/m);
    expect(out.stderr).toContain('error: www.blocked.test has no certificate yet (certificate_delayed)\nhint: ');
  });

  it('a domain on a Free account is refused with plan_required (exit 1)', async () => {
    const free = platform.demoAccounts.free.accountId;
    const project = await json<ProjectView>('projects', 'create', '--account', free, '--slug', 'cli-free');
    const human = await cli('domains', 'add', 'www.free.test', '--account', free, '--project', project.projectId);
    expect(human).toMatchObject({ code: 1, stdout: '' });
    expect(human.stderr).toMatch(/^error: Custom domains need the Pro plan or above; this account is on Free\. /);
    const out = await cli('domains', 'add', 'www.free.test', '--account', free, '--project', project.projectId, '--json');
    expect(out.code).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({ error: { code: 'plan_required', status: 403, exitCode: 1 } });
  });
});

describe('usage, help and backends', () => {
  it.each([
    [['domains', 'add', '--account', 'a', '--project', 'p'], 'error: domains add needs DOMAIN'],
    [['domains', 'verify', 'x.test', '--account', 'a'], 'error: domains verify needs --project'],
    [['domains', 'verify', 'x.test', '--account', 'a', '--project', 'p', '--wait', '0'], 'error: --wait must be a whole number above 0, got "0"'],
    [['domains', 'list', '--account', 'a', '--project', 'p', '--wait'], 'error: unknown flag --wait for domains list'],
    [['domains', 'remove', 'a.test', 'b.test', '--account', 'a', '--project', 'p'], 'error: unexpected argument "b.test" for domains remove'],
    [['domains', 'config'], 'error: domains config needs a command: set-primary, add-redirect, remove-redirect'],
    [['domains', 'config', 'drop'], 'error: unknown command "domains config drop"; domains config has: set-primary, add-redirect, remove-redirect'],
    [['domains', 'show'], 'error: domains show needs DOMAIN'],
    [['domains', 'show', 'a.test', '--account', 'a'], 'error: domains show needs --project'],
    [['domains', 'inspect'], 'error: unknown command "domains inspect"; domains has: add, list, verify, reverify, remove, check-drift, config, show, release'],
    [['domains', 'verify', 'a.test', '--project', 'p'], 'error: domains verify needs --account'],
    [['projects', 'deploy', '--account', 'a', '--project', 'p'], 'error: projects deploy needs DIR'],
  ])('usage error %j: exit 2', async (argv, message) => {
    const out = await cli(...argv);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr.startsWith(message), out.stderr).toBe(true);
  });

  it('domains release is an operators\' command for a deployed stack: locally it exits 1', async () => {
    for (const command of ['release']) {
      const out = await cliWith(['domains', command, 'a.test', '--json']);
      expect(out.code, command).toBe(1);
      expect(JSON.parse(out.stdout)).toMatchObject({ error: { code: 'not_supported', exitCode: 1 } });
    }
  });

  it('--stack/--outputs: projects and domains are refused with exit 1 (the dashboard\'s API on AWS)', async () => {
    const out = await cliWith(['domains', 'list', '--account', 'a', '--project', 'p', '--stack', 'MessagesPlatform-Api', '--json']);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^error: projects and domains of a deployed stack are managed by their owners in the dashboard \(output DashboardUrl/);
    expect(JSON.parse(out.stdout)).toMatchObject({ error: { code: 'not_supported', exitCode: 1 } });
    expect((await cliWith(['projects', 'list', '--account', 'a', '--outputs', 'cdk-outputs.json'])).code).toBe(1);
  });

  it('help for every new command, with its arguments and examples', async () => {
    const global = await cliWith(['--help']);
    const commands = [
      'projects create', 'projects list', 'projects show', 'projects deploy',
      'domains add', 'domains list', 'domains verify', 'domains reverify', 'domains remove', 'domains check-drift',
      'domains config set-primary', 'domains config add-redirect', 'domains config remove-redirect',
    ];
    for (const command of commands) {
      expect(global.stdout).toContain(`  ${command} `);
      const own = await cliWith([...command.split(' '), '--help']);
      expect(own.code).toBe(0);
      expect(own.stdout).toContain(`Usage: npm run platform -- ${command} `);
      expect(own.stdout).toMatch(/Examples:\n {2}npm run platform -- /);
    }
    expect((await cliWith(['domains', 'add', '-h'])).stdout).toContain('Usage: npm run platform -- domains add DOMAIN --account ID --project ID [--json]');
    expect((await cliWith(['help', 'domains', 'config'])).stdout).toContain('Usage: npm run platform -- domains config <set-primary|add-redirect|remove-redirect>');
  });
});
