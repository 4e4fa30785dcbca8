import { ownershipRecordOf } from './dns-records.js';
import type { DnsExpectation } from './dns-verification.js';
import type { DomainRecord } from './domain-record.js';

/** Verify checks exactly the records shown to the owner; the drift check does not ask for ownership again. */
export function expectationOf(record: DomainRecord, platformHost: string, purpose: 'verify' | 'drift'): DnsExpectation {
  const txt = purpose === 'verify' ? ownershipRecordOf(record.records) : undefined;
  if (!txt) return { target: record.target, platformHost };
  const ownership = { fqdn: txt.fqdn, host: txt.host, value: txt.value, ...(txt.note ? { note: txt.note } : {}) };
  return { target: record.target, platformHost, ownership };
}
