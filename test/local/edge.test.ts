import { describe, expect, it } from 'vitest';
import { EDGE_VALUE, KVS_LIMITS, kvsEntryBytes } from '../../edge/cloudfront-function.js';
import { NodeDnsResolver } from '../../lambda/domains/dns-resolver.js';
import type { DomainRecord } from '../../lambda/domains/domain-record.js';
import type { TenantClaim } from '../../lambda/domains/ports.js';
import { hostOfLoopbackName, LocalEdgeRouter, SimulatedCertificateAuthority } from '../../local/edge.js';

const PREFIX = 'projects/prj_1/deploys/dep_1';
const removed = async () => true;

/** A distinct host name of the longest length DNS allows (253), so that each entry weighs the most. */
function longHost(i: number): string {
  const host = `${`c${i}-`.padEnd(63, 'a')}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(53)}.example`;
  if (host.length !== 253) throw new Error(`host of ${host.length} characters`);
  return host;
}

describe('LocalEdgeRouter.forgetRefusal', () => {
  it('drops a removed domain\'s refusal and gives its bytes back', async () => {
    const edge = new LocalEdgeRouter();
    await edge.serve('shop.platform.example.com', PREFIX);
    const before = edge.store.sizeBytes;
    await edge.refuse('old.example.com');
    expect(edge.store.sizeBytes).toBe(before + kvsEntryBytes('old.example.com', EDGE_VALUE.removed()));
    expect(await edge.forgetRefusal('old.example.com', removed)).toBe(true);
    expect(edge.store.has('old.example.com')).toBe(false);
    expect(edge.store.sizeBytes).toBe(before);
  });

  it('keeps an entry that is not the refusal, and a refusal whose domain is claimed again', async () => {
    const edge = new LocalEdgeRouter();
    await edge.serve('live.example.com', PREFIX);
    await edge.redirect('old.example.com', 'live.example.com', 301);
    expect(await edge.forgetRefusal('live.example.com', removed)).toBe(false);
    expect(await edge.forgetRefusal('old.example.com', removed)).toBe(false);
    await edge.refuse('again.example.com');
    expect(await edge.forgetRefusal('again.example.com', async () => false)).toBe(false);
    expect(await edge.forgetRefusal('absent.example.com', removed)).toBe(false);
    expect(edge.store.value('live.example.com')).toBe(EDGE_VALUE.serve(PREFIX));
    expect(edge.store.value('old.example.com')).toBe(EDGE_VALUE.redirect('live.example.com', 301));
    expect(edge.store.value('again.example.com')).toBe(EDGE_VALUE.removed());
  });

  it('does not delete what a re-added domain wrote while the check ran (the version moved): it checks again', async () => {
    const edge = new LocalEdgeRouter();
    await edge.refuse('back.example.com');
    let checks = 0;
    const goesLiveDuringTheCheck = async () => {
      checks++;
      if (checks === 1) await edge.serve('back.example.com', PREFIX);
      return true;
    };
    expect(await edge.forgetRefusal('back.example.com', goesLiveDuringTheCheck)).toBe(false);
    expect(checks).toBe(1);
    expect(edge.store.value('back.example.com')).toBe(EDGE_VALUE.serve(PREFIX));
  });
});

describe('the edge KeyValueStore over many add/remove cycles', () => {
  const CYCLES = 20_000;

  /** One domain's life at the edge: served, removed (refused), then released (the refusal dropped). */
  async function cycle(edge: LocalEdgeRouter, i: number, cleanUp: boolean, sizes?: (bytes: number) => void) {
    const host = longHost(i);
    await edge.serve(host, PREFIX);
    sizes?.(edge.store.sizeBytes);
    await edge.refuse(host);
    sizes?.(edge.store.sizeBytes);
    if (cleanUp) await edge.forgetRefusal(host, removed);
    sizes?.(edge.store.sizeBytes);
  }

  it(`stays under ${KVS_LIMITS.storeBytes.toLocaleString('en-US')} bytes for ${CYCLES.toLocaleString('en-US')} cycles of the longest names, ending where it began`, async () => {
    const edge = new LocalEdgeRouter();
    await edge.serve('shop.platform.example.com', PREFIX);
    const baseline = edge.store.sizeBytes;
    let peak = baseline;
    for (let i = 0; i < CYCLES; i++) {
      await cycle(edge, i, true, (bytes) => {
        peak = Math.max(peak, bytes);
      });
    }
    expect(peak).toBeLessThan(KVS_LIMITS.storeBytes);
    expect(peak).toBe(baseline + kvsEntryBytes(longHost(0), EDGE_VALUE.serve(PREFIX)));
    expect(edge.store.sizeBytes).toBe(baseline);
    expect(edge.store.itemCount).toBe(1);
  });

  it('would run out of room without the clean-up: the same cycles overflow the store before the end', async () => {
    const edge = new LocalEdgeRouter();
    let completed = 0;
    const overflow = await (async () => {
      for (; completed < CYCLES; completed++) await cycle(edge, completed, false);
    })().then(() => undefined, (error: unknown) => error);
    expect(overflow).toMatchObject({ name: 'ServiceQuotaExceededException' });
    const perRefusal = kvsEntryBytes(longHost(0), EDGE_VALUE.removed());
    expect(completed).toBe(Math.floor(KVS_LIMITS.storeBytes / perRefusal));
  });
});

describe('SimulatedCertificateAuthority: a tenant\'s life', () => {
  const lines: string[] = [];
  const authority = (deleteRefusals?: number) =>
    new SimulatedCertificateAuthority(new NodeDnsResolver(), 'edge.platform.example.com', 'platform.example.com', (l) => lines.push(l), {
      ...(deleteRefusals === undefined ? {} : { deleteRefusals }),
    });
  const record = { domain: 'www.example.com' } as DomainRecord;
  const claim: TenantClaim = { domain: 'www.example.com', projectId: 'prj_1' };
  const none = async () => undefined;

  it('disables the tenant, is refused the delete while the disable "deploys", then deletes it', async () => {
    const ca = authority(2);
    await ca.request(record);
    expect(ca.tenantOf('www.example.com')).toBe('enabled');
    expect(await ca.release(claim, none)).toBe('pending');
    expect(ca.tenantOf('www.example.com')).toBe('disabled');
    expect(await ca.release(claim, none)).toBe('pending');
    expect(await ca.release(claim, none)).toBe('released');
    expect(ca.tenantOf('www.example.com')).toBeUndefined();
    expect(await ca.release(claim, none)).toBe('released');
    expect(lines.filter((l) => l.includes('still deploying'))).toHaveLength(2);
  });

  it('keeps the tenant of a domain claimed again, and enables a disabled one for the new claim', async () => {
    const ca = authority();
    await ca.request(record);
    expect(await ca.release(claim, none)).toBe('pending');
    const again = async () => ({ ...claim, projectId: 'prj_2', slug: 'blog' });
    expect(await ca.release(claim, again)).toBe('kept');
    expect(ca.tenantOf('www.example.com')).toBe('disabled');
    await ca.request(record);
    expect(ca.tenantOf('www.example.com')).toBe('enabled');
  });
});

describe('hostOfLoopbackName', () => {
  it('serves a host under its loopback name: the .localhost suffix is dropped, the port kept', () => {
    expect(hostOfLoopbackName('my-site.platform.example.com.localhost:8080')).toBe('my-site.platform.example.com:8080');
    expect(hostOfLoopbackName('WWW.Shop.Test.LOCALHOST')).toBe('www.shop.test');
    expect(hostOfLoopbackName('my-site.platform.example.com.localhost.:8080')).toBe('my-site.platform.example.com:8080');
  });

  it('leaves every other Host as it came', () => {
    expect(hostOfLoopbackName('my-site.platform.example.com:8080')).toBe('my-site.platform.example.com:8080');
    expect(hostOfLoopbackName('localhost.example.com')).toBe('localhost.example.com');
    expect(hostOfLoopbackName('')).toBe('');
  });
});
