import { randomBytes } from 'node:crypto';
import type { DomainName } from './domain-name.js';
import type { DomainRecord } from './domain-record.js';
import type { DomainStore } from './ports.js';

const OWNERSHIP_LABEL = '_platform-verify';
/** Tells our TXT value apart from other TXT records at that name. */
const OWNERSHIP_VALUE_PREFIX = 'platform-verify=';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** 128 random bits as 26 lower-case base32 characters: a DNS label no one guesses or repeats. */
export function randomToken(): string {
  const bytes = randomBytes(17);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 26) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/** `<token>.edge.<platform domain>` (the `*.edge.` record routes it). */
export const targetHost = (token: string, platformHost: string): string => `${token}.${platformHost}`;

/** Whether `host` is a per-domain target (any claim's) under the platform host. */
export const isTargetHost = (host: string, platformHost: string): boolean =>
  host.endsWith(`.${platformHost}`) && !host.slice(0, -platformHost.length - 1).includes('.');

export interface OwnershipRecord {
  readonly fqdn: string;
  /** As entered at the DNS provider, relative to the registrable domain. */
  readonly host: string;
  readonly value: string;
}

export function ownershipRecord(domain: DomainName, token: string): OwnershipRecord {
  return {
    fqdn: `${OWNERSHIP_LABEL}.${domain.name}`,
    host: domain.subdomain ? `${OWNERSHIP_LABEL}.${domain.subdomain}` : OWNERSHIP_LABEL,
    value: `${OWNERSHIP_VALUE_PREFIX}${token}`,
  };
}

/** The name itself and each parent of it down to the registrable domain: `a.b.example.com`, `b.example.com`, `example.com`. */
export function namesUpToRegistrable(domain: DomainName): string[] {
  const names = [domain.name];
  let name = domain.name;
  while (name !== domain.registrable && name.includes('.')) {
    name = name.slice(name.indexOf('.') + 1);
    names.push(name);
  }
  return names;
}

/** Why the claim needs a TXT record: an apex, or a name (or parent) another account verified before. */
export async function ownershipRequirement(
  domain: DomainName,
  accountId: string,
  domains: Pick<DomainStore, 'get'>,
): Promise<{ readonly reason: 'apex' } | { readonly reason: 'previously_held'; readonly heldName: string } | undefined> {
  for (const name of namesUpToRegistrable(domain)) {
    const held = await domains.get(name);
    if (verifiedByAnother(held, accountId)) return { reason: 'previously_held', heldName: name };
  }
  return domain.apex ? { reason: 'apex' } : undefined;
}

const verifiedByAnother = (record: DomainRecord | undefined, accountId: string): boolean =>
  (record?.verifiedBy ?? []).some((account) => account !== accountId);
