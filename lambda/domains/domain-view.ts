import { type DnsRecordInstruction, requiredRecords } from './dns-records.js';
import type { DomainName } from './domain-name.js';
import type { DomainRecord } from './domain-record.js';
import { ownershipRecord, ownershipRequirement } from './ownership.js';
import type { DomainStore } from './ports.js';

/** What the owner sees of a domain record (no account, token or history). */
export type DomainView = Omit<DomainRecord, 'accountId' | 'ownershipToken' | 'verifiedBy' | 'detachedAt' | 'pendingRelease'>;

export function domainView(record: DomainRecord): DomainView {
  const { accountId: _accountId, ownershipToken: _ownershipToken, verifiedBy: _verifiedBy, ...rest } = record;
  const { detachedAt: _detachedAt, pendingRelease: _pendingRelease, ...view } = rest;
  return view;
}

/** The routing record to the claim's target, and the ownership TXT record when one is required (its note says why). */
export async function recordsFor(
  name: DomainName,
  claim: { readonly accountId: string; readonly target: string; readonly ownershipToken: string },
  domains: Pick<DomainStore, 'get'>,
): Promise<DnsRecordInstruction[]> {
  const requirement = await ownershipRequirement(name, claim.accountId, domains);
  if (!requirement) return requiredRecords(name, { target: claim.target });
  const note =
    requirement.reason === 'apex'
      ? 'An ALIAS/ANAME record cannot be told apart from anyone else\'s by its addresses, so an apex also needs this TXT record to show that the domain is yours.'
      : `${requirement.heldName} was verified by another account on this platform before, so its DNS may still point here without you: ` +
        'this TXT record shows that the name is yours now.';
  const ownership = { ...ownershipRecord(name, claim.ownershipToken), note };
  return requiredRecords(name, { target: claim.target, ownership });
}
