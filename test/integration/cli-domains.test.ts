import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliAgainst } from '../support/cli.js';
import type { DomainConfig, DomainView, ProjectView } from '../../cli/operator-client.js';
import { startTestDns, type TestDnsServer } from '../support/dns-server.js';
import { deployedProject, edge as edgeRequest } from '../support/domains.js';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.js';

// The operator CLI's domains commands (npm run platform -- domains …), in process through run(),
// against the local platform's control API, with the domain flow resolving names on a test DNS
// server. The projects commands, and the usage and help of both, are tested by cli-projects.test.ts.

const HOST = 'edge.platform.example.com';
/** A domain's own target under the platform host, as a pattern. */
const TARGET = '[a-z2-7]{26}\\.edge\\.platform\\.example\\.com';
let dns: TestDnsServer;
let platform: TestPlatform;
let accountId: string;
let projectId: string;

const { cli, json } = cliAgainst(() => platform.controlUrl);

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
const edge = (host: string, path: string) => edgeRequest(platform, host, path);

beforeAll(async () => {
  dns = await startTestDns({
    [HOST]: { A: ['198.51.100.10'] },
    [`*.${HOST}`]: { A: ['198.51.100.10'] },
    'blocked.test': { CAA: [{ flags: 0, tag: 'issue', value: 'letsencrypt.org' }] },
  });
  platform = await startTestPlatform({ dnsServers: [dns.address], domainFlow: { pollMs: 20 } });
  accountId = platform.demoAccounts.pro.accountId;
  // The project under test, deployed (custom domains need a live deploy): its commands are cli-projects.test.ts's.
  const project = await deployedProject(platform, 'cli-site', '<h1>cli site</h1>', accountId);
  projectId = project.path.split('/').pop() as string;
});
afterAll(async () => {
  await platform?.stop();
  await dns?.stop();
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
