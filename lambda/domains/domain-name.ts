import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';
import { parse } from 'tldts';

export type DomainNameProblem =
  | 'empty' |
  'ip_literal' |
  'wildcard' |
  'invalid_characters' |
  'invalid_label' |
  'too_long' |
  'not_registrable' |
  'platform_domain';

export class InvalidDomainError extends Error {
  constructor(readonly problem: DomainNameProblem, message: string) {
    super(message);
    this.name = 'InvalidDomainError';
  }
}

export interface DomainName {
  /** Punycode, lower case, no trailing dot. */
  readonly name: string;
  /** As entered, trimmed (may be Unicode). */
  readonly display: string;
  /** Public suffix + one label, e.g. example.co.uk. */
  readonly registrable: string;
  readonly apex: boolean;
  /** 'www' for www.example.com; '' for an apex. */
  readonly subdomain: string;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Normalises and checks what an owner types (docs/owners.md, "Projects and custom domains"). */
export function normaliseDomain(input: string, platformDomain: string): DomainName {
  const display = input.trim();
  let name = display.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name === '') throw new InvalidDomainError('empty', 'Enter a domain such as www.example.com.');
  if (name.includes('*')) throw new InvalidDomainError('wildcard', 'Wildcard domains are not supported; add each name you want to serve.');
  if (isIP(name) || isIP(name.replace(/^\[|\]$/g, ''))) throw new InvalidDomainError('ip_literal', 'Enter a domain name, not an IP address.');
  if (/[\s/:@?#\\]/.test(name)) {
    throw new InvalidDomainError('invalid_characters', 'Enter only the domain name, without a scheme, path, port or spaces.');
  }
  const ascii = domainToASCII(name);
  if (ascii === '') throw new InvalidDomainError('invalid_characters', `"${display}" is not a valid domain name.`);
  if (ascii.length > 253) throw new InvalidDomainError('too_long', 'A domain name is at most 253 characters.');
  const labels = ascii.split('.');
  if (labels.length < 2) throw new InvalidDomainError('not_registrable', 'Enter a full domain such as example.com.');
  for (const label of labels) {
    if (!LABEL.test(label)) {
      throw new InvalidDomainError(
        'invalid_label',
        `"${label}" is not a valid label: use letters, digits and hyphens, 1 to 63 characters, not starting or ending with a hyphen.`,
      );
    }
  }
  const platform = platformDomain.toLowerCase();
  if (ascii === platform || ascii.endsWith(`.${platform}`)) {
    throw new InvalidDomainError('platform_domain', `Names under ${platform} are the platform's own; every project already has one.`);
  }
  const parsed = parse(ascii, { allowPrivateDomains: true });
  if (!parsed.domain || !parsed.publicSuffix) {
    throw new InvalidDomainError('not_registrable', `"${ascii}" is a public suffix, not a domain you can own.`);
  }
  return {
    name: ascii,
    display,
    registrable: parsed.domain,
    apex: ascii === parsed.domain,
    subdomain: parsed.subdomain ?? '',
  };
}
