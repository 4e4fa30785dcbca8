import type { DomainName } from './domain-name.js';
import { DnsLookupError, type DnsResolver } from './dns-resolver.js';

/** Why verification failed (design §1); each comes with what was observed and what to do. */
export type DnsFailureReason =
  | 'record_not_found' |
  'cname_mismatch' |
  'conflicting_record' |
  'dns_lookup_failed' |
  'apex_not_aliased';

export type DnsVerification =
  | { readonly verified: true; readonly observed: readonly string[] } |
  {
    readonly verified: false;
    readonly reason: DnsFailureReason;
    readonly observed: readonly string[];
    readonly expected: string;
    readonly detail: string;
  };

const canonical = (name: string) => name.toLowerCase().replace(/\.$/, '');

/**
 * Checks the owner's DNS for a domain: a subdomain needs a CNAME to the platform host and nothing
 * else at that name; an apex needs ALIAS/ANAME flattening, i.e. its addresses are the platform
 * host's. A lookup failure is reported as such, never as a wrong record.
 */
export async function verifyDns(domain: DomainName, platformHost: string, dns: DnsResolver): Promise<DnsVerification> {
  const expected = canonical(platformHost);
  try {
    return domain.apex ? await verifyApex(domain, expected, dns) : await verifySubdomain(domain, expected, dns);
  } catch (error) {
    if (!(error instanceof DnsLookupError)) throw error;
    return {
      verified: false,
      reason: 'dns_lookup_failed',
      observed: [`${error.code} for ${error.queried}`],
      expected,
      detail:
        `The DNS lookup of ${error.queried} failed (${error.code}), so the record could not be checked. ` +
        'This is a problem with the DNS servers of the domain, not a wrong record: check that its name servers answer, then verify again.',
    };
  }
}

async function verifySubdomain(domain: DomainName, expected: string, dns: DnsResolver): Promise<DnsVerification> {
  const cnames = (await dns.cname(domain.name)).map(canonical);
  if (cnames.length > 0) {
    if (cnames.includes(expected)) return { verified: true, observed: cnames.map((c) => `CNAME ${c}`) };
    return {
      verified: false,
      reason: 'cname_mismatch',
      observed: cnames.map((c) => `CNAME ${c}`),
      expected,
      detail: `The CNAME of ${domain.name} points to ${cnames.join(', ')}, but it must point to ${expected}. Change its value to exactly ${expected}.`,
    };
  }
  const { a, aaaa } = await dns.addresses(domain.name);
  if (a.length > 0 || aaaa.length > 0) {
    const observed = [...a.map((x) => `A ${x}`), ...aaaa.map((x) => `AAAA ${x}`)];
    return {
      verified: false,
      reason: 'conflicting_record',
      observed,
      expected,
      detail:
        `${domain.name} has ${observed.join(', ')} where the CNAME should be; a name with a CNAME can have no other records. ` +
        `Delete the A/AAAA records of ${domain.subdomain || domain.name}, then add the CNAME to ${expected}.`,
    };
  }
  return notFound(domain, expected, 'CNAME');
}

async function verifyApex(domain: DomainName, expected: string, dns: DnsResolver): Promise<DnsVerification> {
  const [own, platform] = await Promise.all([dns.addresses(domain.name), dns.addresses(expected)]);
  const ownAddresses = [...own.a, ...own.aaaa];
  if (ownAddresses.length === 0) return notFound(domain, expected, 'ALIAS/ANAME');
  const platformAddresses = new Set([...platform.a, ...platform.aaaa]);
  const foreign = ownAddresses.filter((address) => !platformAddresses.has(address));
  if (foreign.length === 0) return { verified: true, observed: ownAddresses };
  return {
    verified: false,
    reason: 'apex_not_aliased',
    observed: ownAddresses,
    expected,
    detail:
      `${domain.name} resolves to ${foreign.join(', ')}, which ${foreign.length === 1 ? 'is' : 'are'} not an address of ${expected}. ` +
      `Replace its A/AAAA records with an ALIAS or ANAME record pointing to ${expected}.`,
  };
}

function notFound(domain: DomainName, expected: string, type: string): DnsVerification {
  return {
    verified: false,
    reason: 'record_not_found',
    observed: [],
    expected,
    detail:
      `No ${type} record was found for ${domain.name}. Add it pointing to ${expected}. DNS changes can take up to 48 hours ` +
      'to propagate, but most resolve within minutes: verify again shortly.',
  };
}
