/*
 * Names no deployer can control, so a deploy with one of them can never finish: the wildcard
 * certificate (lib/constructs/domains/edge.ts) waits for a DNS delegation that cannot happen.
 * Offline `cdk synth` keeps the placeholder default; a deploy refuses it (lib/app.ts).
 */

/** Second-level names reserved for documentation (RFC 2606 §3), and their subdomains. */
const RESERVED_NAMES = ['example.com', 'example.net', 'example.org'] as const;

/** Top-level names that never resolve publicly, with the document that reserves each. */
const RESERVED_TLDS: Readonly<Record<string, string>> = {
  example: 'RFC 2606',
  test: 'RFC 2606 / RFC 6761',
  invalid: 'RFC 2606 / RFC 6761',
  localhost: 'RFC 2606 / RFC 6761',
  local: 'RFC 6762 (multicast DNS)',
  onion: 'RFC 7686',
  alt: 'RFC 9476',
  internal: 'ICANN (private use, 2024)',
};

/** `home.arpa` (RFC 8375) is a reserved name under a real TLD. */
const RESERVED_SUFFIXES: Readonly<Record<string, string>> = { 'home.arpa': 'RFC 8375' };

const within = (domain: string, name: string) => domain === name || domain.endsWith(`.${name}`);

/**
 * Why `domain` can never be delegated to the platform's zone, or undefined when it can be.
 * `domain` is lower case without a trailing dot (the config schema ensures it).
 */
export function reservedDomainReason(domain: string): string | undefined {
  const reserved = RESERVED_NAMES.find((name) => within(domain, name));
  if (reserved) return `${reserved} is reserved for documentation (RFC 2606)`;
  const tld = domain.slice(domain.lastIndexOf('.') + 1);
  if (RESERVED_TLDS[tld]) return `.${tld} is a reserved top-level name (${RESERVED_TLDS[tld]})`;
  const suffix = Object.keys(RESERVED_SUFFIXES).find((name) => within(domain, name));
  if (suffix) return `${suffix} is reserved (${RESERVED_SUFFIXES[suffix]})`;
  return undefined;
}
