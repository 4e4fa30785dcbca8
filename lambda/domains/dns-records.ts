import type { DomainName } from './domain-name.js';
import type { DnsRecordInstruction } from './domain-record.js';
import type { OwnershipRecord } from './ownership.js';

export type { DnsRecordInstruction };

const RECORD_TTL_SECONDS = 3600;

const APEX_NOTE =
  'An apex cannot have a CNAME. Use an ALIAS or ANAME record (the name depends on your DNS provider); ' +
  'not every provider supports them. If yours does not, use a subdomain such as www instead.';

interface RequiredRecordsOptions {
  readonly target: string;
  readonly ownership?: OwnershipRecord & { readonly note: string };
}

/** The records the owner sets (interface document, custom domain rules 4 and 5). */
export function requiredRecords(domain: DomainName, options: RequiredRecordsOptions): DnsRecordInstruction[] {
  const routing: DnsRecordInstruction = domain.apex
    ? { type: 'ALIAS', purpose: 'routing', host: '@', fqdn: domain.name, value: options.target, ttl: RECORD_TTL_SECONDS, note: APEX_NOTE }
    : { type: 'CNAME', purpose: 'routing', host: domain.subdomain, fqdn: domain.name, value: options.target, ttl: RECORD_TTL_SECONDS };
  if (!options.ownership) return [routing];
  const { fqdn, host, value, note } = options.ownership;
  return [routing, { type: 'TXT', purpose: 'ownership', host, fqdn, value, ttl: RECORD_TTL_SECONDS, note }];
}
