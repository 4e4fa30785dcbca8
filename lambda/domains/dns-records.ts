import type { DomainName } from './domain-name.js';

export interface DnsRecordInstruction {
  readonly type: 'CNAME' | 'ALIAS';
  /** The name to enter at the DNS provider, relative to the registrable domain ('@' for the apex). */
  readonly host: string;
  /** The fully qualified name the record is for. */
  readonly fqdn: string;
  readonly value: string;
  readonly ttl: number;
  readonly note?: string;
}

export const RECORD_TTL_SECONDS = 3600;

/**
 * The records the owner sets (interface document, custom domain rules 4 and 5): a CNAME for a
 * subdomain, an ALIAS/ANAME for an apex, both pointing at the platform host.
 */
export function requiredRecords(domain: DomainName, platformHost: string): DnsRecordInstruction[] {
  if (domain.apex) {
    return [
      {
        type: 'ALIAS',
        host: '@',
        fqdn: domain.name,
        value: platformHost,
        ttl: RECORD_TTL_SECONDS,
        note:
          'An apex cannot have a CNAME. Use an ALIAS or ANAME record (the name depends on your DNS provider); ' +
          'not every provider supports them. If yours does not, use a subdomain such as www instead.',
      },
    ];
  }
  return [{ type: 'CNAME', host: domain.subdomain, fqdn: domain.name, value: platformHost, ttl: RECORD_TTL_SECONDS }];
}
