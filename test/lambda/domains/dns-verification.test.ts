import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnoseCaa } from '../../../lambda/domains/caa.js';
import { NodeDnsResolver } from '../../../lambda/domains/dns-resolver.js';
import { verifyDns } from '../../../lambda/domains/dns-verification.js';
import { normaliseDomain } from '../../../lambda/domains/domain-name.js';
import { startTestDns, type TestDnsServer } from '../../support/dns-server.js';

// Against a real DNS server (dns2 on 127.0.0.1) through node:dns, as the flow's Lambda does.
const HOST = 'edge.platform.example.com';
let dns: TestDnsServer;
let resolver: NodeDnsResolver;
const domain = (name: string) => normaliseDomain(name, 'platform.example.com');

beforeAll(async () => {
  dns = await startTestDns({
    [HOST]: { A: ['198.51.100.10', '198.51.100.11'], AAAA: ['2001:db8::10'] },
    'ok.example.com': { CNAME: HOST },
    'ok-dot.example.com': { CNAME: `${HOST.toUpperCase()}.` },
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
  it('verifies a CNAME to the platform host (case and trailing dot do not matter)', async () => {
    expect(await verifyDns(domain('ok.example.com'), HOST, resolver)).toEqual({ verified: true, observed: [`CNAME ${HOST}`] });
    expect((await verifyDns(domain('ok-dot.example.com'), HOST, resolver)).verified).toBe(true);
  });

  it('reports an A record in place of the CNAME as conflicting_record, with what it found', async () => {
    const result = await verifyDns(domain('a-record.example.com'), HOST, resolver);
    expect(result).toMatchObject({ verified: false, reason: 'conflicting_record', observed: ['A 203.0.113.7'], expected: HOST });
  });

  it('reports a different CNAME as cname_mismatch, showing the observed value next to the expected one', async () => {
    const result = await verifyDns(domain('wrong.example.com'), HOST, resolver);
    expect(result).toMatchObject({ verified: false, reason: 'cname_mismatch', observed: ['CNAME old-host.herokudns.com'], expected: HOST });
    if (!result.verified) expect(result.detail).toContain('old-host.herokudns.com');
  });

  it('reports no record as record_not_found, mentioning propagation', async () => {
    const result = await verifyDns(domain('missing.example.com'), HOST, resolver);
    expect(result).toMatchObject({ verified: false, reason: 'record_not_found', observed: [] });
    if (!result.verified) expect(result.detail).toMatch(/48 hours/);
  });

  it('reports SERVFAIL as dns_lookup_failed, distinct from a wrong record', async () => {
    const result = await verifyDns(domain('broken.example.com'), HOST, resolver);
    expect(result).toMatchObject({ verified: false, reason: 'dns_lookup_failed' });
    if (!result.verified) expect(result.observed[0]).toMatch(/SERVFAIL|ESERVFAIL/);
  });

  it('verifies an apex whose ALIAS resolves to the platform host addresses', async () => {
    expect(await verifyDns(domain('aliased-apex.net'), HOST, resolver)).toEqual({
      verified: true,
      observed: ['198.51.100.10', '2001:db8::10'],
    });
  });

  it('refuses an apex resolving elsewhere (apex_not_aliased) or nowhere (record_not_found)', async () => {
    expect(await verifyDns(domain('elsewhere-apex.org'), HOST, resolver)).toMatchObject({
      verified: false,
      reason: 'apex_not_aliased',
      observed: ['203.0.113.5'],
    });
    expect(await verifyDns(domain('nothing-apex.org'), HOST, resolver)).toMatchObject({ reason: 'record_not_found' });
  });

  it('reports an unreachable DNS server as dns_lookup_failed', async () => {
    const unreachable = new NodeDnsResolver(['127.0.0.1:9'], { timeoutMs: 200, tries: 1 });
    expect(await verifyDns(domain('ok.example.com'), HOST, unreachable)).toMatchObject({ reason: 'dns_lookup_failed' });
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
