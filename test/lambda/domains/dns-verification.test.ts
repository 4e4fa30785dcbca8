import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnoseCaa } from '../../../lambda/domains/caa.js';
import { NodeDnsResolver } from '../../../lambda/domains/dns-resolver.js';
import { checkPointing, type DnsExpectation, verifyDns } from '../../../lambda/domains/dns-verification.js';
import { normaliseDomain } from '../../../lambda/domains/domain-name.js';
import { startTestDns, type TestDnsServer } from '../../support/dns-server.js';

// Against a real DNS server (dns2 on 127.0.0.1) through node:dns, as the flow's Lambda does.
const HOST = 'edge.platform.example.com';
const TARGET = `own7target4this2claim3abcd.${HOST}`;
const OTHER = `another5claims6target7wxyz.${HOST}`;
/** A domain that must point at TARGET (the claim's own target) and nothing else. */
const OWN: DnsExpectation = { target: TARGET, platformHost: HOST };
const PROOF = { fqdn: '_platform-verify.proof.example.com', host: '_platform-verify.proof', value: 'platform-verify=tok123', note: 'Because.' };
let dns: TestDnsServer;
let resolver: NodeDnsResolver;
const domain = (name: string) => normaliseDomain(name, 'platform.example.com');

beforeAll(async () => {
  dns = await startTestDns({
    [HOST]: { A: ['198.51.100.10', '198.51.100.11'], AAAA: ['2001:db8::10'] },
    [`*.${HOST}`]: { A: ['198.51.100.10', '198.51.100.11'], AAAA: ['2001:db8::10'] },
    'ok.example.com': { CNAME: TARGET },
    'ok-dot.example.com': { CNAME: `${TARGET.toUpperCase()}.` },
    'shared.example.com': { CNAME: HOST },
    'other.example.com': { CNAME: OTHER },
    'proof.example.com': { CNAME: TARGET },
    '_platform-verify.proof.example.com': { TXT: ['google-site-verification=x', 'platform-verify=tok123'] },
    'wrong-proof.example.com': { CNAME: TARGET },
    '_platform-verify.wrong-proof.example.com': { TXT: ['platform-verify=someone-else'] },
    'a-record.example.com': { A: ['203.0.113.7'] },
    'wrong.example.com': { CNAME: 'old-host.herokudns.com' },
    'old-host.herokudns.com': { A: ['203.0.113.99'] },
    'broken.example.com': { SERVFAIL: true },
    'aliased-apex.net': { A: ['198.51.100.10'], AAAA: ['2001:db8::10'] },
    'elsewhere-apex.org': { A: ['203.0.113.5'] },
    'letsencrypt.example.com': { CAA: [{ flags: 0, tag: 'issue', value: 'letsencrypt.org' }] },
    'caa-parent.test': { CAA: [{ flags: 0, tag: 'issue', value: 'digicert.com; cansignhttpexchanges=yes' }] },
    'child.caa-parent.test': { CNAME: HOST },
    'amazon.test': { CAA: [{ flags: 0, tag: 'issue', value: 'amazon.com' }] },
    'www.amazon.test': { CNAME: HOST },
    'iodef.test': { CAA: [{ flags: 0, tag: 'iodef', value: 'mailto:security@iodef.test' }] },
    'critical.test': { CAA: [{ flags: 128, tag: 'futuretag', value: 'x' }] },
  });
  resolver = new NodeDnsResolver([dns.address], { timeoutMs: 500, tries: 1 });
});
afterAll(() => dns?.stop());

describe('verifyDns', () => {
  it('verifies a CNAME to the claim\'s own target (case and trailing dot do not matter)', async () => {
    expect(await verifyDns(domain('ok.example.com'), OWN, resolver)).toEqual({ verified: true, observed: [`CNAME ${TARGET}`] });
    expect((await verifyDns(domain('ok-dot.example.com'), OWN, resolver)).verified).toBe(true);
  });

  it('refuses a CNAME to the bare edge.<platform domain> as a plain mismatch (it is no host)', async () => {
    const result = await verifyDns(domain('shared.example.com'), OWN, resolver);
    expect(result).toMatchObject({ verified: false, reason: 'cname_mismatch', observed: [`CNAME ${HOST}`], expected: TARGET });
    if (!result.verified) expect(result.detail).toBe(
      `The CNAME of shared.example.com points to ${HOST}, but it must point to ${TARGET}. Change its value to exactly ${TARGET}.`,
    );
  });

  it('refuses a CNAME to another claim\'s target, showing both values', async () => {
    const result = await verifyDns(domain('other.example.com'), OWN, resolver);
    expect(result).toMatchObject({ verified: false, reason: 'cname_mismatch', observed: [`CNAME ${OTHER}`], expected: TARGET });
    if (!result.verified) expect(result.detail).toContain('That is the target of another domain, or of an earlier time this name was added');
  });

  it('requires the ownership TXT record when one is expected, naming exactly the record to add', async () => {
    expect(await verifyDns(domain('proof.example.com'), { ...OWN, ownership: PROOF }, resolver)).toEqual({ verified: true, observed: [`CNAME ${TARGET}`] });
    const missing = await verifyDns(domain('ok.example.com'), { ...OWN, ownership: { ...PROOF, fqdn: '_platform-verify.ok.example.com', host: '_platform-verify.ok' } }, resolver);
    expect(missing).toEqual({
      verified: false,
      reason: 'ownership_unproven',
      observed: [],
      expected: 'platform-verify=tok123',
      detail:
        'ok.example.com needs an ownership record: a TXT record named _platform-verify.ok.example.com (enter _platform-verify.ok at your DNS provider) ' +
        'with the value platform-verify=tok123. Because. Add it, then verify again.',
    });
    const wrong = await verifyDns(domain('wrong-proof.example.com'), { ...OWN, ownership: { ...PROOF, fqdn: '_platform-verify.wrong-proof.example.com' } }, resolver);
    expect(wrong).toMatchObject({ reason: 'ownership_unproven', observed: ['TXT platform-verify=someone-else'] });
  });

  it('checkPointing accepts the target and never asks for the TXT record', async () => {
    expect((await checkPointing(domain('ok.example.com'), { ...OWN, ownership: PROOF }, resolver)).verified).toBe(true);
    expect(await checkPointing(domain('shared.example.com'), OWN, resolver)).toMatchObject({
      reason: 'cname_mismatch',
      expected: TARGET,
    });
  });

  it('reports an A record in place of the CNAME as conflicting_record, with what it found', async () => {
    const result = await verifyDns(domain('a-record.example.com'), OWN, resolver);
    expect(result).toMatchObject({ verified: false, reason: 'conflicting_record', observed: ['A 203.0.113.7'], expected: TARGET });
  });

  it('reports a different CNAME as cname_mismatch, showing the observed value next to the expected one', async () => {
    const result = await verifyDns(domain('wrong.example.com'), OWN, resolver);
    expect(result).toMatchObject({ verified: false, reason: 'cname_mismatch', observed: ['CNAME old-host.herokudns.com'], expected: TARGET });
    if (!result.verified) expect(result.detail).toBe(
      `The CNAME of wrong.example.com points to old-host.herokudns.com, but it must point to ${TARGET}. Change its value to exactly ${TARGET}.`,
    );
  });

  it('reports no record as record_not_found, mentioning propagation', async () => {
    const result = await verifyDns(domain('missing.example.com'), OWN, resolver);
    expect(result).toMatchObject({ verified: false, reason: 'record_not_found', observed: [] });
    if (!result.verified) expect(result.detail).toMatch(/48 hours/);
  });

  it('reports SERVFAIL as dns_lookup_failed, distinct from a wrong record', async () => {
    const result = await verifyDns(domain('broken.example.com'), OWN, resolver);
    expect(result).toMatchObject({ verified: false, reason: 'dns_lookup_failed' });
    if (!result.verified) expect(result.observed[0]).toMatch(/SERVFAIL|ESERVFAIL/);
  });

  it('verifies an apex whose ALIAS resolves to its target\'s addresses', async () => {
    expect(await verifyDns(domain('aliased-apex.net'), OWN, resolver)).toEqual({
      verified: true,
      observed: ['198.51.100.10', '2001:db8::10'],
    });
  });

  it('refuses an apex resolving elsewhere (apex_not_aliased) or nowhere (record_not_found)', async () => {
    expect(await verifyDns(domain('elsewhere-apex.org'), OWN, resolver)).toMatchObject({
      verified: false,
      reason: 'apex_not_aliased',
      observed: ['203.0.113.5'],
    });
    expect(await verifyDns(domain('nothing-apex.org'), OWN, resolver)).toMatchObject({ reason: 'record_not_found' });
  });

  it('reports an unreachable DNS server as dns_lookup_failed', async () => {
    const unreachable = new NodeDnsResolver(['127.0.0.1:9'], { timeoutMs: 200, tries: 1 });
    expect(await verifyDns(domain('ok.example.com'), OWN, unreachable)).toMatchObject({ reason: 'dns_lookup_failed' });
  });
});

describe('diagnoseCaa', () => {
  it('allows Amazon when no CAA record exists anywhere up the tree', async () => {
    expect(await diagnoseCaa('ok.example.com', resolver)).toEqual({ allowed: true, records: [] });
  });

  it('names the record and where it was found when it only allows another CA', async () => {
    const result = await diagnoseCaa('letsencrypt.example.com', resolver);
    expect(result).toMatchObject({ allowed: false, foundAt: 'letsencrypt.example.com' });
    if (!result.allowed) expect(result.detail).toContain('issue "letsencrypt.org"');
  });

  it('climbs to the parent (RFC 8659) and stops at the first name with CAA records', async () => {
    const result = await diagnoseCaa('child.caa-parent.test', resolver);
    expect(result).toMatchObject({ allowed: false, foundAt: 'caa-parent.test' });
    expect(await diagnoseCaa('www.amazon.test', resolver)).toMatchObject({ allowed: true, foundAt: 'amazon.test' });
  });

  it('treats a set without issue tags as no restriction, and an unknown critical tag as a block', async () => {
    expect(await diagnoseCaa('iodef.test', resolver)).toMatchObject({ allowed: true, foundAt: 'iodef.test' });
    expect(await diagnoseCaa('critical.test', resolver)).toMatchObject({ allowed: false, foundAt: 'critical.test' });
  });
});
