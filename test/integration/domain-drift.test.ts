import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDns, type TestDnsServer } from '../support/dns-server.js';
import {
  addDomain,
  control,
  deployedProject,
  type DomainBody,
  edge,
  PLATFORM_ZONE,
  runDriftCheck,
  setRecords,
  verifyUntil,
} from '../support/domains.js';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Issue 15, drift checks: live domains re-checked through the domain flow's drift branch (the
// deployed definition in aws-local-stepfunctions, the real task code), started by the operator API
// and by the local timer, against a dns2 server; the grace period passes on the test's clock.
const DAY = 24 * 60 * 60 * 1000;
const FINAL = ['active', 'dns_failed', 'dns_misconfigured', 'certificate_delayed'];
let dns: TestDnsServer;
let platform: TestPlatform;
let site: { accountId: string; path: string };

const iso = (ms: number) => new Date(ms).toISOString();
const get = async (domain: string) => (await control(platform, 'GET', `${site.path}/domains/${domain}`)).body as DomainBody;

/** Adds, points and verifies a domain of the site; returns it active. */
async function liveDomain(name: string): Promise<DomainBody> {
  const added = await addDomain(platform, site.path, name);
  setRecords(dns, added.records);
  const active = await verifyUntil(platform, site.path, name, FINAL);
  expect(active.state).toBe('active');
  return active;
}

beforeAll(async () => {
  dns = await startTestDns(PLATFORM_ZONE);
  platform = await startTestPlatform({
    dnsServers: [dns.address],
    domainFlow: { pollMs: 20, releaseWaitMs: 20, tenantDeleteRefusals: 0, driftCheckIntervalMs: 0 },
  });
  site = await deployedProject(platform, 'drifting-site', '<h1>site</h1>');
});
afterAll(async () => {
  await platform?.stop();
  await dns?.stop();
});

describe('drift of a live domain', () => {
  const NAME = 'www.drift.test';
  let target: string;

  it('a check that finds the CNAME pointing elsewhere makes the domain dns_misconfigured with what was observed; it is still served', async () => {
    target = (await liveDomain(NAME)).target;
    dns.set(NAME, { CNAME: 'elsewhere.example.net' });
    const started = await runDriftCheck(platform);
    expect(started).toEqual({ execution: expect.stringMatching(/^drift-now-/), startedAt: iso(platform.clock.now()) });
    const now = platform.clock.now();
    expect((await get(NAME))).toMatchObject({
      state: 'dns_misconfigured',
      misconfiguration: {
        reason: 'cname_mismatch',
        observed: ['CNAME elsewhere.example.net'],
        expected: target,
        detail: `The CNAME of ${NAME} points to elsewhere.example.net, but it must point to ${target}. Change its value to exactly ${target}.`,
        since: iso(now),
        detachAt: iso(now + 7 * DAY),
        checkedAt: iso(now),
      },
    });
    expect(await edge(platform, NAME)).toEqual({ status: 200, body: '<h1>site</h1>' });
  });

  it('returns to active by itself once the DNS points at its target again', async () => {
    dns.set(NAME, { CNAME: target });
    await runDriftCheck(platform);
    const fixed = await get(NAME);
    expect(fixed.state).toBe('active');
    expect(fixed.misconfiguration).toBeUndefined();
    expect(await edge(platform, NAME)).toEqual({ status: 200, body: '<h1>site</h1>' });
  });

  it('a failed DNS lookup is not a finding: the domain stays as it was', async () => {
    dns.set(NAME, { SERVFAIL: true });
    await runDriftCheck(platform);
    expect((await get(NAME)).state).toBe('active');
    dns.set(NAME, { CNAME: target });
  });

  it('is detached after the grace period (7 days by default): refused at once, out of the configuration, its tenant released, the name free', async () => {
    // The primary domain, with another domain of the project redirecting to it.
    const OLD = 'old.drift.test';
    await liveDomain(OLD);
    expect((await control(platform, 'PUT', `${site.path}/domain-config/primary`, { domain: NAME })).status).toBe(200);
    expect((await control(platform, 'POST', `${site.path}/domain-config/redirects`, { from: OLD, to: NAME })).status).toBe(200);
    expect((await edge(platform, OLD)).status).toBe(301);

    dns.set(NAME, { CNAME: 'elsewhere.example.net' });
    const since = platform.clock.now();
    await runDriftCheck(platform);
    platform.clock.advance(6 * DAY);
    await runDriftCheck(platform);
    const stillServed = await get(NAME);
    expect(stillServed).toMatchObject({
      state: 'dns_misconfigured',
      misconfiguration: { since: iso(since), detachAt: iso(since + 7 * DAY), checkedAt: iso(platform.clock.now()) },
    });
    expect((await edge(platform, NAME)).status).toBe(200);
    // A misconfigured domain still serves: the configuration may keep naming it.
    expect((await control(platform, 'PUT', `${site.path}/domain-config/primary`, { domain: NAME })).status).toBe(200);

    platform.clock.advance(DAY);
    await runDriftCheck(platform);
    expect((await control(platform, 'GET', `${site.path}/domains/${NAME}`)).status).toBe(404);
    const listed = (await control(platform, 'GET', `${site.path}/domains`)).body.domains as DomainBody[];
    expect(listed.map((d) => d.domain)).toEqual([OLD]);
    expect((await edge(platform, NAME)).status).toBe(404);
    const project = (await control(platform, 'GET', site.path)).body;
    expect(project.domains).toEqual({ primary: `drifting-site.platform.example.com`, redirects: [] });
    // The redirect to the detached domain went with it: its source serves the site again.
    expect(await edge(platform, OLD)).toEqual({ status: 200, body: '<h1>site</h1>' });
    // The release branch deleted the tenant and dropped the refusal.
    expect(platform.certificates.tenantOf(NAME)).toBeUndefined();
    expect(platform.certificates.history).toContain(`[local edge] SIMULATED: tenant of ${NAME} deleted`);
    expect(platform.edge.store.has(NAME)).toBe(false);

    // Whoever controls the DNS now can claim the name, proving it with a TXT record.
    const other = await deployedProject(platform, 'new-owner-site', '<h1>new owner</h1>');
    const claimed = await addDomain(platform, other.path, NAME);
    expect(claimed.target).not.toBe(target);
    expect(claimed.records.map((r) => r.type)).toEqual(['CNAME', 'TXT']);
  });

  it('a failed Re-verify of a live domain is drift too: dns_misconfigured and still served, not dns_failed', async () => {
    const NAME2 = 'api.drift.test';
    await liveDomain(NAME2);
    dns.set(NAME2, { A: ['203.0.113.7'] });
    const now = platform.clock.now();
    const after = await verifyUntil(platform, site.path, NAME2, FINAL);
    expect(after).toMatchObject({
      state: 'dns_misconfigured',
      misconfiguration: { reason: 'conflicting_record', observed: ['A 203.0.113.7'], since: iso(now), detachAt: iso(now + 7 * DAY) },
    });
    expect(after.failure).toBeUndefined();
    expect((await edge(platform, NAME2)).status).toBe(200);
  });
});

describe('the local timer', () => {
  it('starts the drift check by itself, as the schedule does on AWS', async () => {
    const timed = await startTestPlatform({
      dnsServers: [dns.address],
      domainFlow: { pollMs: 20, releaseWaitMs: 20, driftCheckIntervalMs: 100 },
    });
    try {
      const own = await deployedProject(timed, 'timed-site', '<h1>timed</h1>');
      const added = await addDomain(timed, own.path, 'www.timer.test');
      setRecords(dns, added.records);
      expect((await verifyUntil(timed, own.path, 'www.timer.test', FINAL)).state).toBe('active');
      dns.set('www.timer.test', { CNAME: 'elsewhere.example.net' });
      const drifted = await eventually(async () => {
        const current = (await control(timed, 'GET', `${own.path}/domains/www.timer.test`)).body;
        return current.state === 'dns_misconfigured' ? current : undefined;
      }, 10_000, 50);
      expect(drifted.misconfiguration).toMatchObject({ observed: ['CNAME elsewhere.example.net'] });
    } finally {
      await timed.stop();
    }
  });
});
