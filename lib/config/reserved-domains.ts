// Names no deployer controls: a deploy with one would wait forever for its certificate's delegation.

// RFC 2606 §3, subdomains included.
const RESERVED_NAMES = ['example.com', 'example.net', 'example.org'] as const;

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

const RESERVED_SUFFIXES: Readonly<Record<string, string>> = { 'home.arpa': 'RFC 8375' };

const within = (domain: string, name: string) => domain === name || domain.endsWith(`.${name}`);

/** Why `domain` (lower case, no trailing dot) can never be delegated to the platform's zone, if it cannot. */
export function reservedDomainReason(domain: string): string | undefined {
  const reserved = RESERVED_NAMES.find((name) => within(domain, name));
  if (reserved) return `${reserved} is reserved for documentation (RFC 2606)`;
  const tld = domain.slice(domain.lastIndexOf('.') + 1);
  if (RESERVED_TLDS[tld]) return `.${tld} is a reserved top-level name (${RESERVED_TLDS[tld]})`;
  const suffix = Object.keys(RESERVED_SUFFIXES).find((name) => within(domain, name));
  if (suffix) return `${suffix} is reserved (${RESERVED_SUFFIXES[suffix]})`;
  return undefined;
}
