import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliAgainst, runCli } from '../support/cli.js';
import type { ProjectView } from '../../cli/operator-client.js';
import { edge as edgeRequest } from '../support/domains.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// The operator CLI's projects commands (npm run platform -- projects …), and the usage, help and
// backends of the projects and domains commands, in process through run(), against the local
// platform's control API. The domains commands are tested by cli-domains.test.ts.

let platform: TestPlatform;
let accountId: string;
let projectId: string;
const temp = mkdtempSync(join(tmpdir(), 'cli-projects-'));

const cliWith = (argv: readonly string[]) => runCli(argv);
const { cli, json } = cliAgainst(() => platform.controlUrl);

/** `--account … --project …` of the project under test. */
const ids = () => ['--account', accountId, '--project', projectId];

/** A request to the local edge with a Host header. */
const edge = (host: string, path: string) => edgeRequest(platform, host, path);

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
  platform = await startTestPlatform();
  accountId = platform.demoAccounts.pro.accountId;
});
afterAll(async () => {
  await platform?.stop();
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
