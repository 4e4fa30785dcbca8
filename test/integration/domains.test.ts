import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployOverHttp } from '../support/deploys.js';
import { startTestDns, type TestDnsServer } from '../support/dns-server.js';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Issue 4 "must show": the domain flow (the deployed state machine definition, run by
// aws-local-stepfunctions with the real task code) against a DNS server on loopback.
const HOST = 'edge.platform.example.com';
const EDGE_IPS = { A: ['198.51.100.10'], AAAA: ['2001:db8::10'] };
/** A claim's own target: 26 base32 characters under the platform host. */
const TARGET = /^[a-z2-7]{26}\.edge\.platform\.example\.com$/;
let dns: TestDnsServer;
let platform: TestPlatform;
let projectPath: string;
let accountId: string;

async function control(method: string, path: string, body?: unknown) {
  const res = await fetch(`${platform.controlUrl}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A request to the local edge with a Host header (fetch may not set Host; node:http can). */
function edge(host: string, path = '/'): Promise<{ status: number; headers: Headers; text(): Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${platform.edgeUrl}${path}`, { headers: { Host: host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers, text: async () => body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const deploy = (path: string, html: string) => deployOverHttp(platform.controlUrl, path, html);

interface Added {
  readonly target: string;
  readonly records: ReadonlyArray<{ type: string; fqdn: string; value: string }>;
}

/** Sets the records the platform asked for at the test DNS server (the routing record, and the TXT record if any). */
function setRecords(added: Added, extra: Record<string, unknown> = {}) {
  for (const record of added.records) {
    if (record.type === 'CNAME') dns.set(record.fqdn, { CNAME: record.value });
    if (record.type === 'ALIAS') dns.set(record.fqdn, { ...EDGE_IPS, ...extra });
    if (record.type === 'TXT') dns.set(record.fqdn, { TXT: [record.value] });
  }
}

/**
 * Adds the domain, sets its records (unless `dnsAs` sets something else), presses Verify, and
 * waits for the flow to settle in one of `states`.
 */
async function verify(domain: string, states: string[], dnsAs?: (added: Added) => void) {
  const added = await control('POST', `${projectPath}/domains`, { domain });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  const view = added.body.domain as Added;
  if (dnsAs) dnsAs(view);
  else setRecords(view);
  expect((await control('POST', `${projectPath}/domains/${domain}/verify`)).status).toBe(202);
  return eventually(async () => {
    const current = await control('GET', `${projectPath}/domains/${domain}`);
    return states.includes(current.body.state as string) ? current.body : undefined;
  }, 15_000, 25);
}

beforeAll(async () => {
  dns = await startTestDns({
    [HOST]: EDGE_IPS,
    // The platform zone's wildcard: every per-domain target resolves to the connection group.
    [`*.${HOST}`]: EDGE_IPS,
    'old-host.example.net': { A: ['203.0.113.99'] },
    'caa.test': { CAA: [{ flags: 0, tag: 'issue', value: 'letsencrypt.org' }] },
  });
  // Release rounds 2 s apart: long enough to add and verify the domain again between the refused
  // delete and the next round, even on a loaded 2-core box (300 ms was not, once in a CI-like run).
  platform = await startTestPlatform({ dnsServers: [dns.address], domainFlow: { pollMs: 20, releaseWaitMs: 2_000 } });
  accountId = platform.demoAccounts.pro.accountId;
  const project = await control('POST', `/accounts/${accountId}/projects`, { slug: 'shop-site', name: 'Shop' });
  expect(project.status).toBe(201);
  projectPath = `/accounts/${accountId}/projects/${project.body.projectId}`;
});
afterAll(async () => {
  await platform?.stop();
  await dns?.stop();
});

describe('projects and deploys', () => {
  it('serves the project at its default subdomain only after a successful deploy', async () => {
    expect((await edge('shop-site.platform.example.com')).status).toBe(404);
    await deploy(projectPath, '<h1>v1</h1>');
    const deployed = await control('GET', projectPath);
    expect(deployed.body).toMatchObject({ deployState: 'succeeded', defaultDomain: 'shop-site.platform.example.com' });
    const page = await edge('shop-site.platform.example.com');
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<h1>v1</h1>');
  });

  it('refuses a bad deploy and keeps the live version', async () => {
    const sha256 = 'a'.repeat(64);
    const bad = await control('POST', `${projectPath}/deploys`, { files: [{ path: '../escape.html', sha256, size: 1 }] });
    expect(bad.status).toBe(400);
    expect(await (await edge('shop-site.platform.example.com')).text()).toBe('<h1>v1</h1>');
  });
});

describe('gates', () => {
  it('refuses a domain on the Free plan, before a deploy, and one already taken', async () => {
    const free = platform.demoAccounts.free.accountId;
    const freeProject = await control('POST', `/accounts/${free}/projects`, { slug: 'free-site' });
    const onFree = await control('POST', `/accounts/${free}/projects/${freeProject.body.projectId}/domains`, { domain: 'www.free.test' });
    expect(onFree).toMatchObject({ status: 403, body: { code: 'plan_required' } });

    const fresh = await control('POST', `/accounts/${accountId}/projects`, { slug: 'not-deployed' });
    const early = await control('POST', `/accounts/${accountId}/projects/${fresh.body.projectId}/domains`, { domain: 'www.early.test' });
    expect(early).toMatchObject({ status: 409, body: { code: 'project_not_deployed' } });

    const other = await control('POST', `/accounts/${accountId}/projects`, { slug: 'other-site' });
    const otherPath = `/accounts/${accountId}/projects/${other.body.projectId}`;
    await deploy(otherPath, 'other');
    expect((await control('POST', `${otherPath}/domains`, { domain: 'taken.test' })).status).toBe(201);
    const taken = await control('POST', `${projectPath}/domains`, { domain: ' TAKEN.test. ' });
    expect(taken).toMatchObject({ status: 409, body: { code: 'domain_taken' } });
    // The message says whose project holds the name: another of this account's (named), this one,
    // or another account's (never named).
    expect(taken.body.detail).toBe(
      'taken.test is a domain of your project other-site. A domain serves one project only: remove it there first to add it here.',
    );
    const again = await control('POST', `${otherPath}/domains`, { domain: 'taken.test' });
    expect(again).toMatchObject({ status: 409, body: { code: 'domain_taken', detail: 'taken.test is already a domain of this project: it is listed below.' } });
    const business = platform.demoAccounts.business.accountId;
    const theirs = await control('POST', `/accounts/${business}/projects`, { slug: 'business-site' });
    const theirsPath = `/accounts/${business}/projects/${theirs.body.projectId}`;
    await deploy(theirsPath, 'theirs');
    const elsewhere = await control('POST', `${theirsPath}/domains`, { domain: 'taken.test' });
    expect(elsewhere).toMatchObject({ status: 409, body: { code: 'domain_taken' } });
    expect(elsewhere.body.detail).toBe(
      'taken.test is a domain of a project of another account. A domain serves one project only; if the name is yours, ask that account\'s owner to remove it.',
    );
    expect(JSON.stringify(elsewhere.body)).not.toContain(other.body.projectId as string);
  });

  it('normalises the input and shows the records to set: a CNAME to the domain\'s own target, and for an apex an ownership TXT record', async () => {
    const added = await control('POST', `${projectPath}/domains`, { domain: '  Blog.Example.ORG. ' });
    const target = (added.body.domain as Added).target;
    expect(target).toMatch(TARGET);
    expect(added.body.records).toEqual([
      { type: 'CNAME', purpose: 'routing', host: 'blog', fqdn: 'blog.example.org', value: target, ttl: 3600 },
    ]);
    const apex = await control('POST', `${projectPath}/domains`, { domain: 'example.org' });
    const apexTarget = (apex.body.domain as Added).target;
    expect(apexTarget).toMatch(TARGET);
    expect(apexTarget).not.toBe(target);
    expect(apex.body.records).toMatchObject([
      { type: 'ALIAS', purpose: 'routing', host: '@', value: apexTarget, note: expect.stringMatching(/not every/i) },
      { type: 'TXT', purpose: 'ownership', host: '_platform-verify', fqdn: '_platform-verify.example.org', value: expect.stringMatching(/^platform-verify=[a-z2-7]{26}$/) },
    ]);
    expect((await control('POST', `${projectPath}/domains`, { domain: '*.example.org' })).body.code).toBe('invalid_domain');
  });
});

describe('DNS scenarios through the flow', () => {
  it('correct CNAME → active, and the domain serves the live deploy', async () => {
    expect(await verify('www.good.test', ['active', 'dns_failed', 'certificate_delayed'])).toMatchObject({ state: 'active' });
    expect(await (await edge('www.good.test')).text()).toBe('<h1>v1</h1>');
  });

  it('A record in place of the CNAME → conflicting_record', async () => {
    expect(await verify('shop.a-record.test', ['dns_failed', 'active'], () => dns.set('shop.a-record.test', { A: ['203.0.113.7'] }))).toMatchObject({
      state: 'dns_failed',
      failure: { reason: 'conflicting_record', observed: ['A 203.0.113.7'] },
    });
  });

  it('wrong CNAME → cname_mismatch, showing the observed value and the domain\'s own target', async () => {
    let target = '';
    const failed = await verify('www.wrong.test', ['dns_failed', 'active'], (added) => {
      target = added.target;
      dns.set('www.wrong.test', { CNAME: 'old-host.example.net' });
    });
    expect(failed).toMatchObject({
      state: 'dns_failed',
      failure: { reason: 'cname_mismatch', observed: ['CNAME old-host.example.net'], expected: target },
    });
  });

  it('no record → record_not_found', async () => {
    expect(await verify('www.missing.test', ['dns_failed', 'active'], () => undefined)).toMatchObject({
      state: 'dns_failed',
      failure: { reason: 'record_not_found', observed: [] },
    });
  });

  it('SERVFAIL → dns_lookup_failed', async () => {
    expect(await verify('broken.servfail.test', ['dns_failed', 'active'], () => dns.set('broken.servfail.test', { SERVFAIL: true }))).toMatchObject({
      state: 'dns_failed',
      failure: { reason: 'dns_lookup_failed' },
    });
  });

  it('apex ALIAS resolving to its target\'s addresses, with the ownership TXT record → active', async () => {
    expect(await verify('apex-good.test', ['active', 'dns_failed', 'certificate_delayed'])).toMatchObject({ state: 'active', apex: true });
  });

  it('CAA issue "letsencrypt.org" → certificate_delayed after the 30-minute watchdog, then re-verify after the fix → active', async () => {
    expect(await verify('www.caa.test', ['issuing_certificate', 'active', 'dns_failed'])).toMatchObject({
      state: 'issuing_certificate',
    });
    // Nothing happens before the watchdog: 29 minutes later it is still issuing. Each certificate
    // check asks for caa.test's CAA record; three more questions mean a whole check ran after the
    // move and the flow went on to its next one.
    platform.clock.advance(29 * 60_000);
    const asked = dns.asked('caa.test');
    await eventually(async () => (dns.asked('caa.test') >= asked + 3 ? true : undefined), 10_000, 25);
    expect((await control('GET', `${projectPath}/domains/www.caa.test`)).body.state).toBe('issuing_certificate');
    platform.clock.advance(2 * 60_000);
    const delayed = await eventually(async () => {
      const current = await control('GET', `${projectPath}/domains/www.caa.test`);
      return current.body.state === 'certificate_delayed' ? current.body : undefined;
    }, 10_000, 25);
    expect(delayed.diagnosis).toMatchObject({
      dnsStillVerifies: true,
      caaAllowsAmazon: false,
      caaFoundAt: 'caa.test',
      caaRecord: 'caa.test CAA 0 issue "letsencrypt.org"',
    });

    dns.set('caa.test', { CAA: [{ flags: 0, tag: 'issue', value: 'amazon.com' }] });
    // The target is the claim's: a Re-verify keeps it (the CNAME set for Verify stays right).
    expect((await control('POST', `${projectPath}/domains/www.caa.test/reverify`)).status).toBe(202);
    const active = await eventually(async () => {
      const current = await control('GET', `${projectPath}/domains/www.caa.test`);
      return current.body.state === 'active' ? current.body : undefined;
    }, 10_000, 25);
    expect(active).toMatchObject({ attempt: 2 });
    expect(active.diagnosis).toBeUndefined();
  });
});

describe('configuration, redirects and removal', () => {
  it('a redirect answers 301 with Location keeping path and query', async () => {
    const config = await control('POST', `${projectPath}/domain-config/redirects`, { from: 'apex-good.test', to: 'www.good.test' });
    expect(config.status).toBe(200);
    expect(config.body.redirects).toEqual([{ from: 'apex-good.test', to: 'www.good.test', status: 301 }]);
    const answer = await edge('apex-good.test', '/docs/page?lang=en&x=1');
    expect(answer.status).toBe(301);
    expect(answer.headers.get('location')).toBe('https://www.good.test/docs/page?lang=en&x=1');
  });

  it('refuses chains and targets outside the project', async () => {
    const outside = await control('POST', `${projectPath}/domain-config/redirects`, { from: 'www.caa.test', to: 'example.com' });
    expect(outside).toMatchObject({ status: 400, body: { code: 'invalid_config' } });
    const chain = await control('POST', `${projectPath}/domain-config/redirects`, { from: 'www.caa.test', to: 'apex-good.test' });
    expect(chain.status).toBe(400);
  });

  it('sets the primary domain', async () => {
    const config = await control('PUT', `${projectPath}/domain-config/primary`, { domain: 'www.good.test' });
    expect(config.body).toMatchObject({ primary: 'www.good.test' });
  });

  it('removing a domain stops serving it on the very next request, with a warning when it had no redirect', async () => {
    expect((await edge('www.caa.test')).status).toBe(200);
    const removed = await control('DELETE', `${projectPath}/domains/www.caa.test`);
    expect(removed.body).toMatchObject({ removed: true, warning: expect.stringMatching(/no redirect/) });
    const next = await edge('www.caa.test');
    expect(next.status).toBe(404);
    expect(next.headers.get('cache-control')).toBe('no-store');
  });

  it('will not remove a domain that others redirect to', async () => {
    const refused = await control('DELETE', `${projectPath}/domains/www.good.test`);
    expect(refused).toMatchObject({ status: 409, body: { code: 'domain_in_use' } });
  });
});

describe('asynchronous release of a removed domain\'s tenant', () => {
  const linesOf = (domain: string) => platform.certificates.history.filter((l) => l.includes(`of ${domain} `));

  it('answers the removal before the tenant is gone; the release disables it, retries the refused delete, deletes it, then drops the refusal', async () => {
    const domain = 'apex-good.test';
    // The redirect from it to www.good.test goes with it (www.good.test itself, a redirect target, cannot be removed).
    expect(platform.certificates.tenantOf(domain)).toBe('enabled');
    const removed = await control('DELETE', `${projectPath}/domains/${domain}`);
    expect(removed).toMatchObject({ status: 200, body: { removed: true } });
    expect(platform.certificates.tenantOf(domain)).not.toBeUndefined();
    expect((await edge(domain)).status).toBe(404);
    expect(platform.edge.store.value(domain)).toBe('{"x":1}');

    await eventually(async () => (platform.certificates.tenantOf(domain) === undefined ? true : undefined), 10_000, 25);
    await platform.domainFlow.settle();
    expect(linesOf(domain)).toEqual([
      `[local edge] SIMULATED: tenant of ${domain} disabled`,
      `[local edge] SIMULATED: deleting the tenant of ${domain} refused, its disable is still deploying (ResourceNotDisabled)`,
      `[local edge] SIMULATED: tenant of ${domain} deleted`,
    ]);
    // Nothing routes the host to the distribution any more: its refusal is gone from the store, and
    // the function still answers 404 for it (an unknown host).
    expect(platform.edge.store.has(domain)).toBe(false);
    const after = await edge(domain);
    expect(after.status).toBe(404);
    expect(after.headers.get('cache-control')).toBe('no-store');
  });

  it('keeps the tenant and the edge entry of a domain added again (to another project) before its release finished', async () => {
    const domain = 'www.again.test';
    expect(await verify(domain, ['active', 'dns_failed', 'certificate_delayed'])).toMatchObject({ state: 'active' });
    expect(await (await edge(domain)).text()).toBe('<h1>v1</h1>');
    expect((await control('DELETE', `${projectPath}/domains/${domain}`)).status).toBe(200);
    // The first round disabled the tenant and was refused the delete; the next one is 2 s away.
    await eventually(async () => (platform.certificates.tenantOf(domain) === 'disabled' ? true : undefined), 5_000, 5);

    const listed = (await control('GET', `/accounts/${accountId}/projects`)).body.projects as Array<{ projectId: string; slug: string }>;
    const otherPath = `/accounts/${accountId}/projects/${listed.find((p) => p.slug === 'other-site')?.projectId}`;
    const again = await control('POST', `${otherPath}/domains`, { domain });
    expect(again.status).toBe(201);
    // A new claim, a new target: the owner points the CNAME at it (same account: no TXT needed).
    const claim = again.body.domain as Added;
    expect(claim.records.map((r) => r.type)).toEqual(['CNAME']);
    setRecords(claim);
    expect((await control('POST', `${otherPath}/domains/${domain}/verify`)).status).toBe(202);
    await platform.domainFlow.settle();

    expect((await control('GET', `${otherPath}/domains/${domain}`)).body).toMatchObject({ state: 'active' });
    expect(platform.certificates.tenantOf(domain)).toBe('enabled');
    expect(linesOf(domain).filter((l) => l.includes('deleted'))).toEqual([]);
    expect(await (await edge(domain)).text()).toBe('other');
  });
});
