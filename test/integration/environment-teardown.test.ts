import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teardownRuntimeResources } from '../../cli/environment-teardown.js';
import { localRuntimeResources } from '../../local/environment-resources.js';
import { deployOverHttp } from '../support/deploys.js';
import { startTestDns, type TestDnsServer } from '../support/dns-server.js';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Issue 26 item 4: the environment teardown removes what the platform created at run time —
// distribution tenants, `internal-<account>` keys, `enterprise-<account>` usage plans — here on
// the local platform, whose stand-ins record them as API Gateway and CloudFront would.
const HOST = 'edge.platform.example.com';
const EDGE_IPS = { A: ['198.51.100.10'], AAAA: ['2001:db8::10'] };
let dns: TestDnsServer;
let platform: TestPlatform;

async function control(method: string, path: string, body?: unknown) {
  const res = await fetch(`${platform.controlUrl}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  dns = await startTestDns({ [HOST]: EDGE_IPS, [`*.${HOST}`]: EDGE_IPS });
  platform = await startTestPlatform({ dnsServers: [dns.address], domainFlow: { pollMs: 20 } });
});
afterAll(async () => {
  await platform?.stop();
  await dns?.stop();
});

describe('environment teardown on the local platform', () => {
  it('leaves no tenant, internal key or Enterprise usage plan behind, waiting out the tenants\' disable', async () => {
    // Run-time resources as customers create them: an Enterprise account (its own usage plan and
    // key), a Pro account's key, and a live custom domain (its tenant).
    const limits = { perMinute: 100, perDay: 1_000 };
    const enterprise = await control('POST', '/accounts', { name: 'Big Co', plan: 'enterprise', limits });
    expect(enterprise.status).toBe(201);
    const enterpriseId = enterprise.body.accountId as string;
    expect((await control('POST', `/accounts/${enterpriseId}/keys`, { name: 'prod' })).status).toBe(201);
    const pro = platform.demoAccounts.pro.accountId;
    const project = await control('POST', `/accounts/${pro}/projects`, { slug: 'teardown-site', name: 'Teardown' });
    expect(project.status).toBe(201);
    const projectPath = `/accounts/${pro}/projects/${project.body.projectId}`;
    expect((await deployOverHttp(platform.controlUrl, projectPath, '<h1>site</h1>')).uploadedFiles).toBe(1);
    const added = await control('POST', `${projectPath}/domains`, { domain: 'www.teardown.test' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    for (const record of (added.body.domain as { records: { type: string; fqdn: string; value: string }[] }).records) {
      if (record.type === 'CNAME') dns.set(record.fqdn, { CNAME: record.value });
      if (record.type === 'TXT') dns.set(record.fqdn, { TXT: [record.value] });
    }
    expect((await control('POST', `${projectPath}/domains/www.teardown.test/verify`)).status).toBe(202);
    await eventually(async () => (platform.certificates.tenantOf('www.teardown.test') === 'enabled' ? true : undefined), 15_000, 25);

    // The demo Enterprise account has its own plan too.
    const enterprisePlans = [`enterprise-${enterpriseId}`, `enterprise-${platform.demoAccounts.enterprise.accountId}`];
    expect(platform.usagePlans.plansNamed('enterprise-').sort()).toEqual([...enterprisePlans].sort());
    expect(platform.usagePlans.keysNamed('internal-').map((k) => k.name)).toEqual(
      expect.arrayContaining([`internal-${enterpriseId}`, `internal-${pro}`]),
    );

    const pauses: number[] = [];
    const report = await teardownRuntimeResources(localRuntimeResources(platform.certificates, platform.usagePlans), {
      // CloudFront refuses the delete while the disable deploys (the stand-in plays one refusal).
      pause: async (ms) => {
        pauses.push(ms);
      },
      pauseMs: 1,
    });

    expect(report.tenants).toEqual(['www.teardown.test']);
    expect([...report.usagePlans].sort()).toEqual([...enterprisePlans].sort());
    expect(report.keys).toEqual(expect.arrayContaining([`internal-${enterpriseId}`, `internal-${pro}`]));
    expect(pauses).toEqual([1]);
    expect(platform.certificates.tenantDomains()).toEqual([]);
    expect(platform.usagePlans.keysNamed('internal-')).toEqual([]);
    expect(platform.usagePlans.plansNamed('enterprise-')).toEqual([]);
    // The stack's own resources stay for CloudFormation: the pooled keys and standard plans.
    expect(platform.usagePlans.keysNamed('pooled-').length).toBeGreaterThan(0);

    // Idempotent: a second run finds nothing left to do.
    const again = await teardownRuntimeResources(localRuntimeResources(platform.certificates, platform.usagePlans), {
      pause: async () => {},
    });
    expect(again).toEqual({
      tenants: [],
      keys: [],
      usagePlans: [],
    });
  }, 60_000);
});
