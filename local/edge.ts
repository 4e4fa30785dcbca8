import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  EDGE_VALUE,
  isResponse,
  loadViewerRequest,
  MemoryKeyValueStore,
  viewerRequestEvent,
} from '../edge/cloudfront-function.js';
import type { RedirectStatus } from '../contracts/domains.js';
import { diagnoseCaa } from '../lambda/domains/caa.js';
import type { DnsResolver } from '../lambda/domains/dns-resolver.js';
import { expectationOf, verifyDns } from '../lambda/domains/dns-verification.js';
import { normaliseDomain } from '../lambda/domains/domain-name.js';
import { type DomainRecord, isLive } from '../lambda/domains/domain-record.js';
import type {
  CertificateAuthority,
  CertificateStatus,
  DomainStore,
  EdgeCleanup,
  EdgeRouter,
  ReleaseOutcome,
  TenantClaim,
} from '../lambda/domains/ports.js';
import { deployPrefix, type ProjectRecord } from '../lambda/projects/project.js';
import { serveOnLoopback } from './loopback.js';

/** The edge's KeyValueStore locally: the values the CloudFront Function reads, in a store versioned and sized like the real one. */
export class LocalEdgeRouter implements EdgeRouter, EdgeCleanup {
  readonly store = new MemoryKeyValueStore();

  async serve(host: string, prefix: string): Promise<void> {
    this.store.put(host, EDGE_VALUE.serve(prefix));
  }

  async redirect(host: string, to: string, status: number): Promise<void> {
    this.store.put(host, EDGE_VALUE.redirect(to, status as RedirectStatus));
  }

  async refuse(host: string): Promise<void> {
    this.store.put(host, EDGE_VALUE.removed());
  }

  /** As KvsEdgeRouter.forgetRefusal: version, value, check, then a delete conditional on the version. */
  async forgetRefusal(host: string, stillRemoved: () => Promise<boolean>): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const etag = this.store.etag;
      if (this.store.value(host) !== EDGE_VALUE.removed() || !(await stillRemoved())) return false;
      try {
        return this.store.delete(host, etag);
      } catch (error) {
        if ((error as Error).name !== 'ConflictException' || attempt >= 6) throw error;
      }
    }
  }
}

/** With --data, the KeyValueStore rebuilt from the stored projects (removed domains: no entry, the same 404). */
export async function restoreEdge(
  edge: LocalEdgeRouter,
  projects: readonly ProjectRecord[],
  domains: Pick<DomainStore, 'listByProject'>,
  platformDomain: string,
): Promise<void> {
  for (const project of projects) {
    if (!project.accountId || !project.liveDeployId) continue;
    const prefix = deployPrefix(project.projectId, project.liveDeployId);
    await edge.serve(`${project.slug}.${platformDomain}`, prefix);
    const redirects = new Map(project.domains.redirects.map((r) => [r.from, r]));
    for (const domain of await domains.listByProject(project.projectId)) {
      if (!isLive(domain)) continue;
      const redirect = redirects.get(domain.domain);
      if (redirect) await edge.redirect(domain.domain, redirect.to, redirect.status);
      else await edge.serve(domain.domain, prefix);
    }
  }
}

/** The edge's origin locally: the site bucket in s3rver, read as CloudFront reads it through OAC. */
export class S3SiteOrigin {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async read(key: string): Promise<{ body: Uint8Array; contentType: string } | undefined> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const body = await object.Body?.transformToByteArray();
      return body ? { body, contentType: object.ContentType ?? 'application/octet-stream' } : undefined;
    } catch (error) {
      if ((error as Error).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }
}

type SimulatedTenantState = 'enabled' | 'disabled';

/**
 * SIMULATED certificate issuance: like ACM, once the DNS verifies and CAA allows Amazon. One tenant per
 * domain; a released one is disabled, and deleting it is refused (ResourceNotDisabled) `deleteRefusals` times.
 */
export class SimulatedCertificateAuthority implements CertificateAuthority {
  private readonly tenants = new Map<string, { state: SimulatedTenantState; refusalsLeft: number }>();
  /** Every line the simulation printed, in order. */
  readonly history: string[] = [];

  constructor(
    private readonly dns: DnsResolver,
    private readonly platformHost: string,
    private readonly platformDomain: string,
    private readonly log: (line: string) => void = (line) => console.log(line),
    private readonly options: { deleteRefusals?: number } = {},
  ) {}

  private note(line: string): void {
    this.history.push(line);
    this.log(line);
  }

  tenantOf(domain: string): SimulatedTenantState | undefined {
    return this.tenants.get(domain)?.state;
  }

  async request(domain: DomainRecord): Promise<void> {
    // A disabled tenant left by a removal is enabled again for the new claim, as the CloudFront adapter does.
    this.tenants.set(domain.domain, { state: 'enabled', refusalsLeft: 0 });
    this.note(`[local edge] SIMULATED: certificate requested for ${domain.domain} (no CloudFront/ACM locally)`);
  }

  async status(domain: DomainRecord): Promise<CertificateStatus> {
    if (this.tenants.get(domain.domain)?.state !== 'enabled') return { status: 'pending' };
    const dns = await verifyDns(normaliseDomain(domain.domain, this.platformDomain), expectationOf(domain, this.platformHost, 'verify'), this.dns);
    const caa = await diagnoseCaa(domain.domain, this.dns);
    if (!dns.verified || !caa.allowed) return { status: 'pending' };
    this.note(`[local edge] SIMULATED: certificate issued for ${domain.domain} (DNS verifies, CAA allows Amazon)`);
    return { status: 'issued' };
  }

  async release(released: TenantClaim, current: () => Promise<TenantClaim | undefined>): Promise<ReleaseOutcome> {
    if (!this.tenants.has(released.domain)) return 'released';
    // One tenant per domain: a live claim of the domain holds this very tenant.
    if (await current()) return 'kept';
    return (await this.removeTenant(released.domain)) === 'deleted' ? 'released' : 'pending';
  }

  /** The domains that have a simulated tenant (ListDistributionTenants). */
  tenantDomains(): string[] {
    return [...this.tenants.keys()];
  }

  /** One step of removing a tenant whatever claims it (the environment teardown): disable, then delete. */
  async removeTenant(domain: string): Promise<'deleted' | 'pending'> {
    const tenant = this.tenants.get(domain);
    if (!tenant) return 'deleted';
    if (tenant.state === 'enabled') {
      Object.assign(tenant, { state: 'disabled', refusalsLeft: this.options.deleteRefusals ?? 1 });
      this.note(`[local edge] SIMULATED: tenant of ${domain} disabled`);
    }
    if (tenant.refusalsLeft > 0) {
      tenant.refusalsLeft--;
      this.note(`[local edge] SIMULATED: deleting the tenant of ${domain} refused, its disable is still deploying (ResourceNotDisabled)`);
      return 'pending';
    }
    this.tenants.delete(domain);
    this.note(`[local edge] SIMULATED: tenant of ${domain} deleted`);
    return 'deleted';
  }
}

/** Every host is reachable as `<host>.localhost` too (RFC 6761: resolves to loopback); the function sees the host. */
const LOOPBACK_SUFFIX = '.localhost';

export function hostOfLoopbackName(header: string): string {
  const [, name = header, port = ''] = /^(.*?)(:\d*)?$/.exec(header) ?? [];
  const lower = name.toLowerCase().replace(/\.$/, '');
  return lower.endsWith(LOOPBACK_SUFFIX) ? `${lower.slice(0, -LOOPBACK_SUFFIX.length)}${port}` : header;
}

/** Serves projects by Host header over plain HTTP, with the real CloudFront Function on the local KeyValueStore. */
export async function startLocalEdge(options: {
  port: number;
  router: LocalEdgeRouter;
  origin: S3SiteOrigin;
}): Promise<{ url: string; stop(): Promise<void> }> {
  const viewerRequest = loadViewerRequest({ kvsId: 'local-kvs', kvs: options.router.store, log: () => {} });
  // Not guarded: it serves projects by whatever Host the request names, read only, as CloudFront does.
  return serveOnLoopback('local edge', options.port, async (req, res) => {
    const host = hostOfLoopbackName(req.headers.host ?? '');
    const result = await viewerRequest(viewerRequestEvent({ host, url: req.url ?? '/', method: req.method ?? 'GET' }));
    if (isResponse(result)) {
      const headers = Object.fromEntries(Object.entries(result.headers).map(([k, v]) => [k, v.value]));
      res.writeHead(result.statusCode, headers);
      const body = result.body;
      res.end(typeof body === 'string' ? body : body ? Buffer.from(body.data, body.encoding === 'base64' ? 'base64' : 'utf8') : '');
      return;
    }
    let key: string;
    try {
      key = decodeURIComponent(result.uri).replace(/^\//, '');
    } catch {
      key = '';
    }
    const file = key ? await options.origin.read(key) : undefined;
    if (!file) return void res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
    res.writeHead(200, { 'content-type': file.contentType, 'cache-control': 'public, max-age=0, must-revalidate' });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }, { guard: false, fail: (res) => res.writeHead(500).end() });
}
