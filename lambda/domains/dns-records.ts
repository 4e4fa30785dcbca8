import type { DomainName } from './domain-name.js';
import type { DnsRecordInstruction } from './domain-record.js';
import type { OwnershipRecord } from './ownership.js';

export type { DnsRecordInstruction };

export const RECORD_TTL_SECONDS = 3600;

const APEX_NOTE =
  'An apex cannot have a CNAME. Use an ALIAS or ANAME record (the name depends on your DNS provider); ' +
  'not every provider supports them. If yours does not, use a subdomain such as www instead.';

export interface RequiredRecordsOptions {
  /** What the CNAME/ALIAS points at: the claim's own target. */
  readonly target: string;
  /** The ownership TXT record, when the claim must prove ownership (apex, or a name another account held). */
  readonly ownership?: OwnershipRecord & { readonly note: string };
}

/**
 * The records the owner sets (interface document, custom domain rules 4 and 5): a CNAME for a
 * subdomain, an ALIAS/ANAME for an apex, pointing at the target; and the ownership TXT record
 * beside it when one is required.
 */
export function requiredRecords(domain: DomainName, options: RequiredRecordsOptions): DnsRecordInstruction[] {
  const routing: DnsRecordInstruction = domain.apex
    ? { type: 'ALIAS', purpose: 'routing', host: '@', fqdn: domain.name, value: options.target, ttl: RECORD_TTL_SECONDS, note: APEX_NOTE }
    : { type: 'CNAME', purpose: 'routing', host: domain.subdomain, fqdn: domain.name, value: options.target, ttl: RECORD_TTL_SECONDS };
  if (!options.ownership) return [routing];
  const { fqdn, host, value, note } = options.ownership;
  return [routing, { type: 'TXT', purpose: 'ownership', host, fqdn, value, ttl: RECORD_TTL_SECONDS, note }];
}

/** The record a domain points with (its CNAME or ALIAS). */
export const routingRecord = (records: readonly DnsRecordInstruction[]): DnsRecordInstruction | undefined =>
  records.find((r) => r.type === 'CNAME' || r.type === 'ALIAS');

/** The ownership TXT record it must have, if any. */
export const ownershipRecordOf = (records: readonly DnsRecordInstruction[]): DnsRecordInstruction | undefined =>
  records.find((r) => r.type === 'TXT');
