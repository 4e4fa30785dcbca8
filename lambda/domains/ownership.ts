import { randomBytes } from 'node:crypto';
import type { DomainName } from './domain-name.js';
import type { DomainRecord } from './domain-record.js';
import type { DomainStore } from './ports.js';

/** The label of the ownership TXT record: `_platform-verify.<domain>`. */
export const OWNERSHIP_LABEL = '_platform-verify';
/** The TXT value is `platform-verify=<token>`, so other TXT records at that name are told apart. */
export const OWNERSHIP_VALUE_PREFIX = 'platform-verify=';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * 128 random bits as 26 lower-case base32 characters: a valid DNS label, and never guessed or
 * repeated in practice, so each claim's target and ownership token are its own.
 */
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

/** A claim's own target under the platform host: `<token>.edge.<platform domain>` (the `*.edge.` wildcard routes it). */
export const targetHost = (token: string, platformHost: string): string => `${token}.${platformHost}`;

/** Whether `host` is a per-domain target (any claim's) under the platform host. */
export const isTargetHost = (host: string, platformHost: string): boolean =>
  host.endsWith(`.${platformHost}`) && !host.slice(0, -platformHost.length - 1).includes('.');

export interface OwnershipRecord {
  /** The fully qualified name of the TXT record. */
  readonly fqdn: string;
  /** The name as entered at the DNS provider, relative to the registrable domain. */
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

/**
 * Why this claim must prove ownership with a TXT record, if it must: an apex (an ALIAS/ANAME
 * cannot be told apart from anyone else's by its addresses), or a name that another account
 * verified before, itself or a parent of it (its old records may still point our way, as Vercel
 * asks for domains used elsewhere). Returns the name another account verified, for the message.
 */
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
