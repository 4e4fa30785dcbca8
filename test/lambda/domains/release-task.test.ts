import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EDGE_VALUE } from '../../../edge/cloudfront-function.js';
import { NodeDnsResolver } from '../../../lambda/domains/dns-resolver.js';
import type { DomainRecord } from '../../../lambda/domains/domain-record.js';
import { DynamoDbDomainStore } from '../../../lambda/domains/dynamodb-domain-store.js';
import { createReleaseTask, type ReleaseTaskInput, type ReleaseTaskResult } from '../../../lambda/domains/release-task.js';
import { ManualClock } from '../../support/clock.js';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';
import { TENANT_RELEASE_DEFAULTS } from '../../../contracts/domain-flow.js';
import { LocalEdgeRouter, SimulatedCertificateAuthority } from '../../../local/edge.js';
import { createTables, LOCAL_AWS, LOCAL_TABLE_NAMES, type RunningService, startDynamoDb } from '../../../local/emulators.js';

// The release task with the adapters the local platform gives it: the Domains table on dynalite,
// the simulated tenants (CloudFront refusing deletes while a disable "deploys") and the local
// KeyValueStore. The CloudFront adapter's own release is tested against CloudFront's answers in
// cloudfront-tenant-release.test.ts.
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
let dynamodb: RunningService;
let client: ReturnType<typeof createDocumentClient>;
let domains: DynamoDbDomainStore;
let n = 0;

beforeAll(async () => {
  dynamodb = await startDynamoDb();
  await createTables(dynamodb.endpoint);
  client = createDocumentClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint });
  domains = new DynamoDbDomainStore(client, LOCAL_TABLE_NAMES.domains);
});

afterAll(async () => {
  client.destroy();
  await dynamodb.stop();
});

function record(domain: string, projectId: string, state: DomainRecord['state'], createdAt: string): DomainRecord {
  return {
    domain,
    display: domain,
    projectId,
    accountId: 'acc_1',
    apex: false,
    state,
    records: [],
    target: 'own7target.edge.platform.example.com',
    ownershipToken: 'tok123',
    attempt: 1,
    createdAt,
    updatedAt: createdAt,
  };
}

let clock: ManualClock;
let edge: LocalEdgeRouter;
const authority = (deleteRefusals: number) =>
  new SimulatedCertificateAuthority(new NodeDnsResolver(), 'edge.platform.example.com', 'platform.example.com', () => {}, {
    deleteRefusals,
  });

beforeEach(() => {
  clock = new ManualClock(T0);
  edge = new LocalEdgeRouter();
});

/** A domain that was live on project shop (its tenant requested, served at the edge), then removed. */
async function removedDomain(certificates: SimulatedCertificateAuthority): Promise<ReleaseTaskInput> {
  const domain = `d${++n}.example.com`;
  const claimedAt = new Date(T0 - 86_400_000).toISOString();
  await certificates.request(record(domain, 'prj_shop', 'active', claimedAt));
  await edge.refuse(domain);
  await domains.claim(record(domain, 'prj_shop', 'removed', claimedAt));
  return { domain, release: { projectId: 'prj_shop', claimedAt, requestedAt: new Date(T0).toISOString() } };
}

const next = (input: ReleaseTaskInput, released: ReleaseTaskResult): ReleaseTaskInput => ({ ...input, released });

describe('the release task', () => {
  it('waits while the delete is refused, then releases the tenant and drops the refusal from the edge', async () => {
    const certificates = authority(1);
    const task = createReleaseTask({ domains, certificates, edge, clock });
    const input = await removedDomain(certificates);

    const first = await task.releaseTenant(input);
    expect(first).toEqual({ status: 'pending', attempts: 1, waitSeconds: TENANT_RELEASE_DEFAULTS.firstWaitSeconds, expired: false });
    expect(certificates.tenantOf(input.domain)).toBe('disabled');
    expect(edge.store.value(input.domain)).toBe(EDGE_VALUE.removed());

    const second = await task.releaseTenant(next(input, first));
    expect(second).toEqual({ status: 'released', attempts: 1, waitSeconds: 0, expired: false, edgeEntryDeleted: true });
    expect(certificates.tenantOf(input.domain)).toBeUndefined();
    expect(edge.store.has(input.domain)).toBe(false);
  });

  it('doubles the wait after each refused round, up to the cap', async () => {
    const certificates = authority(100);
    const task = createReleaseTask({ domains, certificates, edge, clock });
    let input = await removedDomain(certificates);
    const waits: number[] = [];
    for (let round = 0; round < 7; round++) {
      const result = await task.releaseTenant(input);
      waits.push(result.waitSeconds);
      input = next(input, result);
    }
    expect(waits).toEqual([30, 60, 120, 240, 480, 600, 600]);
    expect(input.released?.attempts).toBe(7);
  });

  it('gives up (expired) once refusals outlast the give-up time since the removal', async () => {
    const certificates = authority(100);
    const task = createReleaseTask({ domains, certificates, edge, clock, timing: { giveUpSeconds: 3600 } });
    const input = await removedDomain(certificates);
    clock.advance(3_599_000);
    expect((await task.releaseTenant(input)).expired).toBe(false);
    clock.advance(1_000);
    expect((await task.releaseTenant(input)).expired).toBe(true);
    expect(await task.releaseTenant({ ...input, release: { ...input.release, requestedAt: 'not a time' } })).toMatchObject({ expired: true });
  });

  it('keeps the tenant and the edge entry of a domain claimed again, on the same or another project', async () => {
    for (const projectId of ['prj_shop', 'prj_blog']) {
      const certificates = authority(1);
      const task = createReleaseTask({ domains, certificates, edge, clock });
      const input = await removedDomain(certificates);
      await domains.claim(record(input.domain, projectId, 'pending_dns', new Date(T0 + 1_000).toISOString()));
      expect(await task.releaseTenant(input), projectId).toEqual({ status: 'kept', attempts: 0, waitSeconds: 0, expired: false });
      expect(certificates.tenantOf(input.domain)).toBe('enabled');
      expect(edge.store.value(input.domain)).toBe(EDGE_VALUE.removed());
    }
  });

  it('keeps a refusal that a re-added domain still needs after its tenant went (the record is live again)', async () => {
    const certificates = authority(0);
    const input = await removedDomain(certificates);
    // The simulated tenants, with the new claim arriving right after the tenant's deletion, before
    // the clean-up of the edge entry.
    const interleaved = {
      request: certificates.request.bind(certificates),
      status: certificates.status.bind(certificates),
      release: async (...args: Parameters<typeof certificates.release>) => {
        const outcome = await certificates.release(...args);
        await domains.claim(record(input.domain, 'prj_blog', 'verifying', new Date(T0 + 2_000).toISOString()));
        return outcome;
      },
    };
    const task = createReleaseTask({ domains, certificates: interleaved, edge, clock });
    expect(await task.releaseTenant(input)).toEqual({ status: 'released', attempts: 0, waitSeconds: 0, expired: false, edgeEntryDeleted: false });
    expect(certificates.tenantOf(input.domain)).toBeUndefined();
    expect(edge.store.value(input.domain)).toBe(EDGE_VALUE.removed());
  });
});
