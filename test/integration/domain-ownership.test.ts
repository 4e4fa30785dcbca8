import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDns, type TestDnsServer } from '../support/dns-server.js';
import {
  addDomain,
  control,
  deployedProject,
  type DomainBody,
  EDGE_IPS,
  edge,
  PLATFORM_HOST,
  PLATFORM_ZONE,
  setRecords,
  TARGET,
  verifyUntil,
} from '../support/domains.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

// Issue 15: ownership that cannot be hijacked. Two accounts on the local platform, the domain flow
// (the deployed definition in aws-local-stepfunctions, the real task code) resolving names on a
// dns2 server that plays the owners' DNS and the platform zone (`*.edge.` wildcard included).
let dns: TestDnsServer;
let platform: TestPlatform;
let a: { accountId: string; path: string };
let b: { accountId: string; path: string };

beforeAll(async () => {
  dns = await startTestDns(PLATFORM_ZONE);
  platform = await startTestPlatform({
    dnsServers: [dns.address],
    domainFlow: { pollMs: 20, releaseWaitMs: 20, tenantDeleteRefusals: 0 },
  });
  a = await deployedProject(platform, 'site-of-a', '<h1>A</h1>');
  b = await deployedProject(platform, 'site-of-b', '<h1>B</h1>');
});
afterAll(async () => {
  await platform?.stop();
  await dns?.stop();
});

const FINAL = ['active', 'dns_failed', 'certificate_delayed'];

describe('the takeover of a dangling CNAME', () => {
  const NAME = 'shop.takeover.test';
  let targetOfA: string;

  it('account A verifies the name with a CNAME to its own target, and it serves A\'s site', async () => {
    const added = await addDomain(platform, a.path, NAME);
    targetOfA = added.target;
    expect(targetOfA).toMatch(TARGET);
    expect(added.records).toEqual([{ type: 'CNAME', purpose: 'routing', host: 'shop', fqdn: NAME, value: targetOfA, ttl: 3600 }]);
    setRecords(dns, added.records);
    expect(await verifyUntil(platform, a.path, NAME, FINAL)).toMatchObject({ state: 'active', target: targetOfA });
    expect(await edge(platform, NAME)).toEqual({ status: 200, body: '<h1>A</h1>' });
  });

  it('A removes the domain but leaves the CNAME; account B adds the name and gets a target of its own', async () => {
    expect((await control(platform, 'DELETE', `${a.path}/domains/${NAME}`)).status).toBe(200);
    await platform.domainFlow.settle();
    expect((await edge(platform, NAME)).status).toBe(404);

    const added = await addDomain(platform, b.path, NAME);
    expect(added.target).toMatch(TARGET);
    expect(added.target).not.toBe(targetOfA);
    // A verified this very name: B also proves ownership with a TXT record.
    expect(added.records.map((r) => [r.type, r.fqdn])).toEqual([['CNAME', NAME], ['TXT', `_platform-verify.${NAME}`]]);
    expect(added.records[1]?.note).toBe(
      `${NAME} was verified by another account on this platform before, so its DNS may still point here without you: ` +
      'this TXT record shows that the name is yours now.',
    );
  });

  it('B\'s Verify with A\'s old CNAME still in place fails with cname_mismatch showing both values, and the name is never served', async () => {
    const failed = await verifyUntil(platform, b.path, NAME, FINAL);
    expect(failed).toMatchObject({
      state: 'dns_failed',
      failure: { reason: 'cname_mismatch', observed: [`CNAME ${targetOfA}`], expected: failed.target },
    });
    expect((failed.failure as { detail: string }).detail).toContain('That is the target of another domain, or of an earlier time this name was added');
    // No tenant, no certificate, nothing at the edge for B.
    expect(platform.certificates.tenantOf(NAME)).toBeUndefined();
    expect(platform.certificates.history.filter((l) => l.includes(`requested for ${NAME}`))).toHaveLength(1);
    expect((await edge(platform, NAME)).status).toBe(404);
    expect(platform.edge.store.value(NAME)).toBeUndefined();
  });

  it('a CNAME to the shared host proves nothing either', async () => {
    dns.set(NAME, { CNAME: PLATFORM_HOST });
    const failed = await verifyUntil(platform, b.path, NAME, FINAL);
    expect(failed).toMatchObject({ state: 'dns_failed', failure: { reason: 'cname_mismatch', observed: [`CNAME ${PLATFORM_HOST}`] } });
    expect((await edge(platform, NAME)).status).toBe(404);
  });

  it('once B controls the DNS (its CNAME and its TXT record), B\'s Verify succeeds and the name serves B\'s site', async () => {
    const current = (await control(platform, 'GET', `${b.path}/domains/${NAME}`)).body as DomainBody;
    setRecords(dns, current.records, 'routing');
    const unproven = await verifyUntil(platform, b.path, NAME, FINAL);
    const txt = current.records[1];
    expect(unproven).toMatchObject({ state: 'dns_failed', failure: { reason: 'ownership_unproven', observed: [], expected: txt?.value } });
    expect((unproven.failure as { detail: string }).detail).toContain(
      `a TXT record named _platform-verify.${NAME} (enter _platform-verify.shop at your DNS provider) with the value ${txt?.value}.`,
    );
    setRecords(dns, current.records);
    expect(await verifyUntil(platform, b.path, NAME, FINAL)).toMatchObject({ state: 'active' });
    expect(await edge(platform, NAME)).toEqual({ status: 200, body: '<h1>B</h1>' });
  });

  it('a removed claim\'s target dies with it: the same account adding the name again gets a new one', async () => {
    const before = (await control(platform, 'GET', `${b.path}/domains/${NAME}`)).body as DomainBody;
    expect((await control(platform, 'DELETE', `${b.path}/domains/${NAME}`)).status).toBe(200);
    await platform.domainFlow.settle();
    const again = await addDomain(platform, b.path, NAME);
    expect(again.target).not.toBe(before.target);
    expect(again.target).not.toBe(targetOfA);
    // B's old CNAME (still in DNS) no longer verifies.
    const failed = await verifyUntil(platform, b.path, NAME, FINAL);
    expect(failed).toMatchObject({ state: 'dns_failed', failure: { reason: 'cname_mismatch', observed: [`CNAME ${before.target}`] } });
  });
});

describe('proof of ownership for an apex', () => {
  const APEX = 'apex-proof.test';

  it('shows the ownership TXT record beside the ALIAS, and refuses the ALIAS alone (its addresses are everybody\'s)', async () => {
    const added = await addDomain(platform, a.path, APEX);
    expect(added.records).toMatchObject([
      { type: 'ALIAS', purpose: 'routing', host: '@', fqdn: APEX, value: added.target },
      {
        type: 'TXT',
        purpose: 'ownership',
        host: '_platform-verify',
        fqdn: `_platform-verify.${APEX}`,
        value: expect.stringMatching(/^platform-verify=[a-z2-7]{26}$/),
        ttl: 3600,
        note: 'An ALIAS/ANAME record cannot be told apart from anyone else\'s by its addresses, so an apex also needs this TXT record to show that the domain is yours.',
      },
    ]);
    dns.set(APEX, EDGE_IPS);
    const failed = await verifyUntil(platform, a.path, APEX, FINAL);
    expect(failed).toMatchObject({ state: 'dns_failed', failure: { reason: 'ownership_unproven', expected: added.records[1]?.value } });
    expect((await edge(platform, APEX)).status).toBe(404);
  });

  it('a TXT record with another value does not do either; the right one does', async () => {
    const current = (await control(platform, 'GET', `${a.path}/domains/${APEX}`)).body as DomainBody;
    dns.set(`_platform-verify.${APEX}`, { TXT: ['platform-verify=somebody-elses-token', 'v=spf1 -all'] });
    expect(await verifyUntil(platform, a.path, APEX, FINAL)).toMatchObject({
      state: 'dns_failed',
      failure: { reason: 'ownership_unproven', observed: ['TXT platform-verify=somebody-elses-token', 'TXT v=spf1 -all'] },
    });
    setRecords(dns, current.records);
    expect(await verifyUntil(platform, a.path, APEX, FINAL)).toMatchObject({ state: 'active' });
    expect(await edge(platform, APEX)).toEqual({ status: 200, body: '<h1>A</h1>' });
  });
});

describe('names that someone else held', () => {
  it('a subdomain of a name another account verified needs the TXT record; the error says exactly which', async () => {
    const WWW = 'www.apex-proof.test';
    // apex-proof.test was verified by A (above); B adds a name under it.
    const added = await addDomain(platform, b.path, WWW);
    const txt = added.records.find((r) => r.type === 'TXT');
    expect(txt).toMatchObject({ host: '_platform-verify.www', fqdn: `_platform-verify.${WWW}` });
    expect(txt?.note).toMatch(/^apex-proof\.test was verified by another account on this platform before/);
    setRecords(dns, added.records, 'routing');
    const failed = await verifyUntil(platform, b.path, WWW, FINAL);
    expect(failed.failure).toEqual({
      reason: 'ownership_unproven',
      observed: [],
      expected: txt?.value,
      detail:
        `${WWW} needs an ownership record: a TXT record named _platform-verify.${WWW} (enter _platform-verify.www at your DNS provider) ` +
        `with the value ${txt?.value}. ${txt?.note} Add it, then verify again.`,
    });
    setRecords(dns, added.records);
    expect(await verifyUntil(platform, b.path, WWW, FINAL)).toMatchObject({ state: 'active' });
  });

  it('the account that verified the parent adds a subdomain with the CNAME alone', async () => {
    const added = await addDomain(platform, a.path, 'blog.apex-proof.test');
    expect(added.records.map((r) => r.type)).toEqual(['CNAME']);
    setRecords(dns, added.records);
    expect(await verifyUntil(platform, a.path, 'blog.apex-proof.test', FINAL)).toMatchObject({ state: 'active' });
  });

  it('a name nobody verified before needs no TXT record', async () => {
    const added = await addDomain(platform, b.path, 'www.fresh-name.test');
    expect(added.records.map((r) => r.type)).toEqual(['CNAME']);
  });
});
