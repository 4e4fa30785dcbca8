import { ownershipRecordOf } from './dns-records.js';
import type { DnsExpectation } from './dns-verification.js';
import type { DomainRecord } from './domain-record.js';

/**
 * What a domain's DNS must show, from its record. Verify checks exactly the records shown to the
 * owner (the routing record to the claim's target, and the ownership TXT when there is one). The
 * drift check asks only whether the domain still points at that target: proof of ownership is not
 * asked again.
 */
export function expectationOf(record: DomainRecord, platformHost: string, purpose: 'verify' | 'drift'): DnsExpectation {
  const txt = purpose === 'verify' ? ownershipRecordOf(record.records) : undefined;
  if (!txt) return { target: record.target, platformHost };
  const ownership = { fqdn: txt.fqdn, host: txt.host, value: txt.value, ...(txt.note ? { note: txt.note } : {}) };
  return { target: record.target, platformHost, ownership };
}
