import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainRecord } from '../../../lambda/domains/domain-record.js';
import { normaliseDomain } from '../../../lambda/domains/domain-name.js';
import { DynamoDbDomainStore } from '../../../lambda/domains/dynamodb-domain-store.js';
import { expectationOf } from '../../../lambda/domains/dns-verification.js';
import {
  isTargetHost,
  namesUpToRegistrable,
  ownershipRecord,
  ownershipRequirement,
  randomToken,
  targetHost,
} from '../../../lambda/domains/ownership.js';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';
import { createTables, LOCAL_AWS, LOCAL_TABLE_NAMES, type RunningService, startDynamoDb } from '../../../local/emulators.js';

// Per-claim targets and tokens, the ownership requirement (against the Domains table on dynalite,
// whose claim carries a removed claim's verification history to the next one), and what a record's
// DNS must show.
const PLATFORM = 'platform.example.com';
const HOST = `edge.${PLATFORM}`;
const name = (n: string) => normaliseDomain(n, PLATFORM);
let dynamodb: RunningService;
let client: ReturnType<typeof createDocumentClient>;
let domains: DynamoDbDomainStore;

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

const record = (domain: string, accountId: string, changes: Partial<DomainRecord> = {}): DomainRecord => ({
  domain,
  display: domain,
  projectId: 'prj_1',
  accountId,
  apex: false,
  state: 'active',
  records: [],
  target: 'own7target.edge.platform.example.com',
  ownershipToken: 'tok123',
  attempt: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...changes,
});

describe('tokens and targets', () => {
  it('draws 128 random bits as 26 base32 characters: a DNS label, different every time', () => {
    const tokens = Array.from({ length: 1000 }, randomToken);
    for (const token of tokens) expect(token).toMatch(/^[a-z2-7]{26}$/);
    expect(new Set(tokens).size).toBe(1000);
  });

  it('puts a claim\'s target one label under the platform host, and tells targets from other hosts', () => {
    expect(targetHost('abc', HOST)).toBe(`abc.${HOST}`);
    expect(isTargetHost(`abc.${HOST}`, HOST)).toBe(true);
    expect(isTargetHost(HOST, HOST)).toBe(false);
    expect(isTargetHost(`a.b.${HOST}`, HOST)).toBe(false);
    expect(isTargetHost('abc.edge.example.net', HOST)).toBe(false);
  });

  it('names the ownership TXT record at _platform-verify.<domain>, its host relative to the registrable domain', () => {
    expect(ownershipRecord(name('shop.eu.example.co.uk'), 'tok')).toEqual({
      fqdn: '_platform-verify.shop.eu.example.co.uk',
      host: '_platform-verify.shop.eu',
      value: 'platform-verify=tok',
    });
    expect(ownershipRecord(name('example.com'), 'tok')).toMatchObject({ fqdn: '_platform-verify.example.com', host: '_platform-verify' });
  });

  it('lists a name and its parents down to the registrable domain (never a public suffix)', () => {
    expect(namesUpToRegistrable(name('a.b.example.co.uk'))).toEqual(['a.b.example.co.uk', 'b.example.co.uk', 'example.co.uk']);
    expect(namesUpToRegistrable(name('example.com'))).toEqual(['example.com']);
  });
});

describe('ownershipRequirement', () => {
  it('asks nothing of a subdomain nobody verified, and a TXT record of every apex', async () => {
    expect(await ownershipRequirement(name('www.nobody.test'), 'acct_b', domains)).toBeUndefined();
    expect(await ownershipRequirement(name('nobody.test'), 'acct_b', domains)).toEqual({ reason: 'apex' });
  });

  it('asks a TXT record when another account verified the name or a parent of it, naming which; not of that account itself', async () => {
    await domains.claim(record('held.test', 'acct_a', { apex: true, verifiedBy: ['acct_a'] }));
    expect(await ownershipRequirement(name('shop.held.test'), 'acct_b', domains)).toEqual({ reason: 'previously_held', heldName: 'held.test' });
    expect(await ownershipRequirement(name('held.test'), 'acct_b', domains)).toEqual({ reason: 'previously_held', heldName: 'held.test' });
    expect(await ownershipRequirement(name('shop.held.test'), 'acct_a', domains)).toBeUndefined();
    expect(await ownershipRequirement(name('held.test'), 'acct_a', domains)).toEqual({ reason: 'apex' });
  });

  it('keeps the history when a removed name is claimed again, so a third account is asked too', async () => {
    await domains.claim(record('www.passed.test', 'acct_a', { state: 'removed', verifiedBy: ['acct_a'] }));
    expect(await domains.claim(record('www.passed.test', 'acct_b', { state: 'pending_dns', createdAt: '2026-02-01T00:00:00.000Z' }))).toBeUndefined();
    expect((await domains.get('www.passed.test'))?.verifiedBy).toEqual(['acct_a']);
    expect(await ownershipRequirement(name('www.passed.test'), 'acct_b', domains)).toEqual({ reason: 'previously_held', heldName: 'www.passed.test' });
    expect(await ownershipRequirement(name('www.passed.test'), 'acct_c', domains)).toMatchObject({ reason: 'previously_held' });
  });
});

describe('expectationOf', () => {
  const routing = { type: 'CNAME', purpose: 'routing', host: 'www', fqdn: 'www.x.test', ttl: 3600 } as const;
  const txt = { type: 'TXT', purpose: 'ownership', host: '_platform-verify.www', fqdn: '_platform-verify.www.x.test', value: 'platform-verify=t', ttl: 3600, note: 'n' } as const;

  it('verifies exactly the records shown: the routing record to the target, and the TXT record when there is one', () => {
    const r = record('www.x.test', 'acct_a', { records: [{ ...routing, value: `own.${HOST}` }, txt], target: `own.${HOST}` });
    expect(expectationOf(r, HOST, 'verify')).toEqual({
      target: `own.${HOST}`,
      platformHost: HOST,
      ownership: { fqdn: '_platform-verify.www.x.test', host: '_platform-verify.www', value: 'platform-verify=t', note: 'n' },
    });
  });

  it('lets the drift check ask for the target only, never for the TXT record', () => {
    const r = record('www.x.test', 'acct_a', { records: [{ ...routing, value: `own.${HOST}` }, txt], target: `own.${HOST}` });
    expect(expectationOf(r, HOST, 'drift')).toEqual({ target: `own.${HOST}`, platformHost: HOST });
  });
});
