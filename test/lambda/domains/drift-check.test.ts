import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeDnsResolver } from '../../../lambda/domains/dns-resolver.js';
import type { DomainRecord } from '../../../lambda/domains/domain-record.js';
import { createDriftCheckTask, type DriftCheckResult } from '../../../lambda/domains/drift-check.js';
import { DynamoDbDomainStore } from '../../../lambda/domains/dynamodb-domain-store.js';
import { DynamoDbProjectStore } from '../../../lambda/projects/dynamodb-project-store.js';
import { ManualClock } from '../../support/clock.js';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';
import { LocalEdgeRouter } from '../../../local/edge.js';
import { createTables, LOCAL_AWS, LOCAL_TABLE_NAMES, type RunningService, startDynamoDb } from '../../../local/emulators.js';
import { startTestDns, type TestDnsServer } from '../../support/dns-server.js';

// The drift task's walk over the live domains, a page per round, with the adapters the local
// platform gives it (the Domains table on dynalite, a dns2 server). Its findings end to end, with
// detachment and the release branch, are in test/integration/domain-drift.test.ts.
const HOST = 'edge.platform.example.com';
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
let dynamodb: RunningService;
let client: ReturnType<typeof createDocumentClient>;
let dns: TestDnsServer;
let domains: DynamoDbDomainStore;

const live = (domain: string, state: DomainRecord['state'], activeAt?: string): DomainRecord => ({
  domain,
  display: domain,
  projectId: 'prj_1',
  accountId: 'acct_1',
  apex: false,
  state,
  records: [{ type: 'CNAME', purpose: 'routing', host: domain.split('.')[0] as string, fqdn: domain, value: `t-${domain.split('.')[0]}.${HOST}`, ttl: 3600 }],
  target: `t-${domain.split('.')[0]}.${HOST}`,
  ownershipToken: 'tok123',
  attempt: 1,
  ...(activeAt ? { activeAt } : {}),
  createdAt: new Date(T0).toISOString(),
  updatedAt: new Date(T0).toISOString(),
});

beforeAll(async () => {
  dynamodb = await startDynamoDb();
  await createTables(dynamodb.endpoint);
  client = createDocumentClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint });
  domains = new DynamoDbDomainStore(client, LOCAL_TABLE_NAMES.domains);
  dns = await startTestDns();
  const at = new Date(T0).toISOString();
  // Seven live domains, all but d7 pointing at their targets; and three the check must not read.
  for (let i = 1; i <= 7; i++) {
    await domains.claim(live(`d${i}.drift.test`, 'active', at));
    dns.set(`d${i}.drift.test`, { CNAME: i === 7 ? 'elsewhere.example.net' : `t-d${i}.${HOST}` });
  }
  await domains.claim(live('pending.drift.test', 'pending_dns'));
  await domains.claim(live('failed.drift.test', 'dns_failed'));
  await domains.claim(live('gone.drift.test', 'removed', at));
});

afterAll(async () => {
  client.destroy();
  await dns.stop();
  await dynamodb.stop();
});

describe('the drift task', () => {
  it('pages through every live domain and only those, carrying its counts from round to round until done', async () => {
    const page = async (cursor: string | undefined) => domains.liveDomains(cursor, 3);
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const next = await page(cursor);
      names.push(...next.records.map((r) => r.domain));
      cursor = next.cursor;
    } while (cursor);
    expect(names.sort()).toEqual(['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7'].map((d) => `${d}.drift.test`));

    const task = createDriftCheckTask({
      domains,
      projects: new DynamoDbProjectStore(client, LOCAL_TABLE_NAMES.projects),
      dns: new NodeDnsResolver([dns.address], { timeoutMs: 500, tries: 1 }),
      edge: new LocalEdgeRouter(),
      flowFor: () => {
        throw new Error('nothing is past its grace period: no release may start');
      },
      clock: new ManualClock(T0 + 60_000),
      platformHost: HOST,
      platformDomain: 'platform.example.com',
      graceSeconds: 7 * 86_400,
      pageSize: 3,
      concurrency: 2,
    });
    const rounds: DriftCheckResult[] = [];
    let drift: Partial<DriftCheckResult> = {};
    do {
      const result = await task.checkDrift({ drift });
      rounds.push(result);
      drift = result;
    } while (!drift.done);
    expect(rounds.length).toBeGreaterThanOrEqual(3);
    expect(rounds.slice(0, -1).every((r) => !r.done && r.cursor !== undefined)).toBe(true);
    const counts = { checked: 7, misconfigured: 1, restored: 0, detached: 0, lookupFailed: 0, releasesStarted: 0 };
    expect(rounds.at(-1)).toEqual({ done: true, ...counts });
    expect(await domains.get('d7.drift.test')).toMatchObject({
      state: 'dns_misconfigured',
      misconfiguration: {
        reason: 'cname_mismatch',
        observed: ['CNAME elsewhere.example.net'],
        expected: `t-d7.${HOST}`,
        since: new Date(T0 + 60_000).toISOString(),
        detachAt: new Date(T0 + 60_000 + 7 * 86_400_000).toISOString(),
      },
    });
    expect((await domains.get('d1.drift.test'))?.state).toBe('active');
  });
});
