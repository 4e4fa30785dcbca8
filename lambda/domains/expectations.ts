import { ownershipRecordOf, routingRecord } from './dns-records.js';
import type { DnsExpectation } from './dns-verification.js';
import type { DomainRecord } from './domain-record.js';

/**
 * What a domain's DNS must show, from its record. Verify checks exactly the records shown to the
 * owner (the routing record's value, and the ownership TXT when there is one). The drift check asks
 * only whether the domain still points at the platform for this claim: at the value it was verified
 * with, or at its own target (a domain added before per-domain targets whose owner has switched the
 * CNAME already but not re-verified yet). Proof of ownership is not asked again.
 */
export function expectationOf(record: DomainRecord, platformHost: string, purpose: 'verify' | 'drift'): DnsExpectation {
  const routing = routingRecord(record.records)?.value ?? record.target ?? platformHost;
  if (purpose === 'drift') {
    const targets = record.target && record.target !== routing ? [routing, record.target] : [routing];
    return { targets, platformHost };
  }
  const txt = ownershipRecordOf(record.records);
  if (!txt) return { targets: [routing], platformHost };
  const ownership = { fqdn: txt.fqdn, host: txt.host, value: txt.value, ...(txt.note ? { note: txt.note } : {}) };
  return { targets: [routing], platformHost, ownership };
}
