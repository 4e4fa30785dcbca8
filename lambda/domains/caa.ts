import type { CaaRecord, DnsResolver } from './dns-resolver.js';

const AMAZON_CA_DOMAINS = ['amazon.com', 'amazontrust.com', 'awstrust.com', 'amazonaws.com'] as const;

type Records = { readonly records: readonly CaaRecord[] };
type CaaDiagnosis = (Records & { readonly allowed: true; readonly foundAt?: string }) |
  (Records & { readonly allowed: false; readonly foundAt: string; readonly detail: string });

const KNOWN_TAGS = new Set(['issue', 'issuewild', 'iodef', 'contactemail', 'contactphone', 'issuemail', 'issuevmc']);

/** RFC 8659: the first name with CAA records, climbing towards the root, decides whether Amazon may issue. */
export async function diagnoseCaa(name: string, dns: DnsResolver): Promise<CaaDiagnosis> {
  const labels = name.split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    const at = labels.slice(i).join('.');
    const records = await dns.caa(at);
    if (records.length === 0) continue;

    const criticalUnknown = records.find((r) => (r.critical & 128) !== 0 && !KNOWN_TAGS.has(r.tag.toLowerCase()));
    if (criticalUnknown) {
      return {
        allowed: false,
        foundAt: at,
        records,
        detail: `CAA record "${describe(criticalUnknown)}" at ${at} is marked critical with a tag no CA knows, which forbids every CA. Remove it.`,
      };
    }
    const issue = records.filter((r) => r.tag.toLowerCase() === 'issue');
    if (issue.length === 0) return { allowed: true, foundAt: at, records };
    const allowsAmazon = issue.some((r) => {
      const issuer = r.value.split(';')[0]?.trim().toLowerCase() ?? '';
      return (AMAZON_CA_DOMAINS as readonly string[]).includes(issuer);
    });
    if (allowsAmazon) return { allowed: true, foundAt: at, records };
    return {
      allowed: false,
      foundAt: at,
      records,
      detail:
        `The CAA record${issue.length > 1 ? 's' : ''} ${issue.map((r) => `"${describe(r)}"`).join(', ')} found at ${at} ` +
        `only allow${issue.length > 1 ? '' : 's'} other certificate authorities, so Amazon cannot issue the certificate. ` +
        `Add a CAA record at ${at}: 0 issue "amazon.com".`,
    };
  }
  return { allowed: true, records: [] };
}

const describe = (r: CaaRecord) => `${r.critical} ${r.tag} "${r.value}"`;
