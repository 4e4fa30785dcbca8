import { request } from 'node:http';
import type { NameRecords, TestDnsServer } from './dns-server.js';
import { deployOverHttp } from './deploys.js';
import { eventually, type TestPlatform } from './platform.js';

// Helpers of the custom-domain integration tests: the control API over HTTP, the local edge by
// Host header, and the records a test sets at its DNS server.

export const PLATFORM_HOST = 'edge.platform.example.com';
/** The connection group's addresses, as the platform zone answers for the host and every target. */
export const EDGE_IPS = { A: ['198.51.100.10'], AAAA: ['2001:db8::10'] } as const;
/** The platform zone's records: the shared host and the `*.edge.` wildcard of the per-domain targets. */
export const PLATFORM_ZONE: Record<string, NameRecords> = { [PLATFORM_HOST]: EDGE_IPS, [`*.${PLATFORM_HOST}`]: EDGE_IPS };
/** A claim's own target: 26 base32 characters under the platform host. */
export const TARGET = /^[a-z2-7]{26}\.edge\.platform\.example\.com$/;

export type Body = Record<string, unknown>;

export interface RecordBody {
  readonly type: 'CNAME' | 'ALIAS' | 'TXT';
  readonly purpose: string;
  readonly host: string;
  readonly fqdn: string;
  readonly value: string;
  readonly note?: string;
}

/** The fields of a domain the tests read. */
export interface DomainBody extends Body {
  readonly domain: string;
  readonly state: string;
  readonly target: string;
  readonly records: readonly RecordBody[];
}

export async function control(platform: TestPlatform, method: string, path: string, body?: unknown) {
  const res = await fetch(`${platform.controlUrl}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

/** A request to the local edge with a Host header (fetch may not set Host; node:http can). */
export function edge(platform: TestPlatform, host: string, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${platform.edgeUrl}${path}`, { headers: { Host: host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sets what `records` ask for: the CNAME (an ALIAS as the target's addresses, as providers flatten it), and the TXT record. */
export function setRecords(dns: TestDnsServer, records: readonly RecordBody[], which: 'all' | 'routing' = 'all'): void {
  for (const record of records) {
    if (record.type === 'CNAME') dns.set(record.fqdn, { CNAME: record.value });
    if (record.type === 'ALIAS') dns.set(record.fqdn, EDGE_IPS);
    if (record.type === 'TXT' && which === 'all') dns.set(record.fqdn, { TXT: [record.value] });
  }
}

/** A Pro account with a deployed project whose page says `html`; returns the project's API path. */
export async function deployedProject(platform: TestPlatform, slug: string, html: string, accountId?: string) {
  const account = accountId ?? ((await control(platform, 'POST', '/accounts', { name: slug, plan: 'pro' })).body.accountId as string);
  const project = await control(platform, 'POST', `/accounts/${account}/projects`, { slug });
  const path = `/accounts/${account}/projects/${project.body.projectId as string}`;
  await deployOverHttp(platform.controlUrl, path, html);
  return { accountId: account, path };
}

export async function addDomain(platform: TestPlatform, projectPath: string, domain: string): Promise<DomainBody> {
  const added = await control(platform, 'POST', `${projectPath}/domains`, { domain });
  if (added.status !== 201) throw new Error(`add ${domain}: ${added.status} ${JSON.stringify(added.body)}`);
  return added.body.domain as DomainBody;
}

/** Presses Verify (or Re-verify) and waits until the flow has settled the domain in one of `states`. */
export async function verifyUntil(
  platform: TestPlatform,
  projectPath: string,
  domain: string,
  states: readonly string[],
) {
  const started = await control(platform, 'POST', `${projectPath}/domains/${domain}/verify`);
  if (started.status !== 202) throw new Error(`verify ${domain}: ${started.status} ${JSON.stringify(started.body)}`);
  await platform.domainFlow.settle();
  return eventually(async () => {
    const current = await control(platform, 'GET', `${projectPath}/domains/${domain}`);
    return states.includes(current.body.state as string) ? (current.body as DomainBody) : undefined;
  }, 15_000, 25);
}

/** Starts a drift check through the operator API and waits for it (and the releases it started) to finish. */
export async function runDriftCheck(platform: TestPlatform) {
  const started = await control(platform, 'POST', '/maintenance/domain-drift-check');
  if (started.status !== 202) throw new Error(`drift check: ${started.status} ${JSON.stringify(started.body)}`);
  await platform.domainFlow.settle();
  return started.body;
}
