import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { dirname, join, normalize, sep } from 'node:path';
import {
  EDGE_VALUE,
  isResponse,
  loadViewerRequest,
  MemoryKeyValueStore,
  type RedirectStatus,
  viewerRequestEvent,
} from '../edge/cloudfront-function.js';
import { diagnoseCaa } from '../lambda/domains/caa.js';
import type { DnsResolver } from '../lambda/domains/dns-resolver.js';
import { verifyDns } from '../lambda/domains/dns-verification.js';
import { normaliseDomain } from '../lambda/domains/domain-name.js';
import type { DomainRecord } from '../lambda/domains/domain-record.js';
import type { CertificateAuthority, CertificateStatus, EdgeRouter } from '../lambda/domains/ports.js';
import { contentTypeOf } from '../lambda/projects/project-service.js';
import type { SiteStorage } from '../lambda/projects/ports.js';
import { listenOnLoopback } from './loopback.js';

const LOCAL_KVS_ID = 'local-kvs';

/** The edge's KeyValueStore locally: the same values the CloudFront Function reads on AWS. */
export class LocalEdgeRouter implements EdgeRouter {
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
}

/** Deployed files in a directory, at the same keys as in the S3 bucket. */
export class FileSiteStorage implements SiteStorage {
  constructor(readonly root: string) {}

  async putFile(key: string, body: Uint8Array): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, body);
  }

  async read(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch {
      return undefined;
    }
  }

  private pathOf(key: string): string {
    const path = normalize(join(this.root, key));
    if (!path.startsWith(this.root + sep)) throw new Error(`key ${key} leaves the site directory`);
    return path;
  }
}

/**
 * SIMULATED certificate issuance: CloudFront and ACM do not run locally. Like ACM, it issues
 * once the domain's DNS verifies and CAA allows Amazon's CA, and never otherwise (so the
 * 30-minute watchdog and its diagnosis can be seen locally too).
 */
export class SimulatedCertificateAuthority implements CertificateAuthority {
  private readonly requested = new Set<string>();

  constructor(
    private readonly dns: DnsResolver,
    private readonly platformHost: string,
    private readonly platformDomain: string,
    private readonly log: (line: string) => void = (line) => console.log(line),
  ) {}

  async request(domain: DomainRecord): Promise<void> {
    this.requested.add(domain.domain);
    this.log(`[local edge] SIMULATED: certificate requested for ${domain.domain} (no CloudFront/ACM locally)`);
  }

  async status(domain: DomainRecord): Promise<CertificateStatus> {
    if (!this.requested.has(domain.domain)) return { status: 'pending' };
    const dns = await verifyDns(normaliseDomain(domain.domain, this.platformDomain), this.platformHost, this.dns);
    const caa = await diagnoseCaa(domain.domain, this.dns);
    if (!dns.verified || !caa.allowed) return { status: 'pending' };
    this.log(`[local edge] SIMULATED: certificate issued for ${domain.domain} (DNS verifies, CAA allows Amazon)`);
    return { status: 'issued' };
  }

  async release(domain: DomainRecord): Promise<void> {
    this.requested.delete(domain.domain);
  }
}

/**
 * Serves projects by Host header on 127.0.0.1, running the real CloudFront Function code against
 * the local KeyValueStore: redirects, refusals of removed domains, and the live deploy's files.
 * Plain HTTP locally; on AWS the edge is HTTPS with each domain's certificate.
 */
export async function startLocalEdge(options: {
  port: number;
  router: LocalEdgeRouter;
  storage: FileSiteStorage;
}): Promise<{ url: string; server: Server; stop(): Promise<void> }> {
  const viewerRequest = loadViewerRequest({ kvsId: LOCAL_KVS_ID, kvs: options.router.store, log: () => {} });
  const server = createServer((req, res) => {
    void (async () => {
      const host = req.headers.host ?? '';
      const result = await viewerRequest(
        viewerRequestEvent({ host, url: req.url ?? '/', method: req.method ?? 'GET' }),
      );
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
      const file = key ? await options.storage.read(key) : undefined;
      if (!file) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('Not found');
        return;
      }
      res.writeHead(200, { 'content-type': contentTypeOf(key), 'cache-control': 'public, max-age=60' });
      res.end(req.method === 'HEAD' ? undefined : file);
    })().catch((error) => {
      console.error('local edge error', error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  const listening = await listenOnLoopback(server, options.port);
  return { url: listening.url, server, stop: listening.stop };
}
