import type { DomainName } from './domain-name.js';
import type { DnsFailure, DomainRecord } from './domain-record.js';
import { DnsLookupError, type DnsResolver } from './dns-resolver.js';
import { isTargetHost } from './ownership.js';

export type DnsVerification =
  | { readonly verified: true; readonly observed: readonly string[] } |
  ({ readonly verified: false } & DnsFailure);

export interface DnsExpectation {
  /** The claim's own target. */
  readonly target: string;
  /** The ownership TXT record, when required; `note` says why. */
  readonly ownership?: { readonly fqdn: string; readonly host: string; readonly value: string; readonly note?: string };
  /** `edge.<platform domain>`, the parent of every claim's target. */
  readonly platformHost: string;
}

/** Verify checks exactly the records shown to the owner; the drift check does not ask for ownership again. */
export function expectationOf(record: DomainRecord, platformHost: string, purpose: 'verify' | 'drift'): DnsExpectation {
  const txt = purpose === 'verify' ? record.records.find((r) => r.type === 'TXT') : undefined;
  if (!txt) return { target: record.target, platformHost };
  const ownership = { fqdn: txt.fqdn, host: txt.host, value: txt.value, ...(txt.note ? { note: txt.note } : {}) };
  return { target: record.target, platformHost, ownership };
}

const canonical = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** A CNAME to the target, or at an apex its addresses; then the TXT record. A failed lookup is no wrong record. */
export async function verifyDns(domain: DomainName, expectation: DnsExpectation, dns: DnsResolver) {
  const pointing = await checkPointing(domain, expectation, dns);
  if (!pointing.verified || !expectation.ownership) return pointing;
  const required = expectation.ownership;
  const ownership = await guard(required.value, () => verifyOwnership(domain, required, dns));
  return ownership.verified ? pointing : ownership;
}

/** What the drift check asks: does the domain still point at its target. */
export function checkPointing(domain: DomainName, expectation: DnsExpectation, dns: DnsResolver) {
  const target = canonical(expectation.target);
  const platformHost = canonical(expectation.platformHost);
  return guard(target, () =>
    domain.apex ? verifyApex(domain, target, dns) : verifySubdomain(domain, target, platformHost, dns));
}

async function guard(expected: string, check: () => Promise<DnsVerification>): Promise<DnsVerification> {
  try {
    return await check();
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

async function verifySubdomain(
  domain: DomainName,
  expected: string,
  platformHost: string,
  dns: DnsResolver,
): Promise<DnsVerification> {
  const cnames = (await dns.cname(domain.name)).map(canonical);
  if (cnames.length > 0) {
    if (cnames.includes(expected)) return { verified: true, observed: cnames.map((c) => `CNAME ${c}`) };
    return {
      verified: false,
      reason: 'cname_mismatch',
      observed: cnames.map((c) => `CNAME ${c}`),
      expected,
      detail: `The CNAME of ${domain.name} points to ${cnames.join(', ')}, but it must point to ${expected}. ${whyNot(cnames, platformHost)}` +
        `Change its value to exactly ${expected}.`,
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

/** Why a CNAME to another claim's target proves nothing. */
function whyNot(cnames: readonly string[], platformHost: string): string {
  return cnames.some((c) => isTargetHost(c, platformHost))
    ? 'That is the target of another domain, or of an earlier time this name was added: each domain has its own, and a new one with every addition. '
    : '';
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

async function verifyOwnership(
  domain: DomainName,
  ownership: NonNullable<DnsExpectation['ownership']>,
  dns: DnsResolver,
): Promise<DnsVerification> {
  const values = await dns.txt(ownership.fqdn);
  if (values.includes(ownership.value)) return { verified: true, observed: [`TXT ${ownership.value}`] };
  const found = values.length > 0 ? `The TXT records at ${ownership.fqdn} are ${values.map((v) => `"${v}"`).join(', ')}; none is this claim's token. ` : '';
  return {
    verified: false,
    reason: 'ownership_unproven',
    observed: values.map((v) => `TXT ${v}`),
    expected: ownership.value,
    detail:
      `${domain.name} needs an ownership record: a TXT record named ${ownership.fqdn} (enter ${ownership.host} at your DNS provider) ` +
      `with the value ${ownership.value}. ${found}${ownership.note ? `${ownership.note} ` : ''}Add it, then verify again.`,
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
