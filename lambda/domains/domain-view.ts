import { type DnsRecordInstruction, requiredRecords } from './dns-records.js';
import type { DomainName } from './domain-name.js';
import type { DomainRecord, DomainState } from './domain-record.js';
import { ownershipRecord, ownershipRequirement } from './ownership.js';
import type { DomainStore } from './ports.js';

export interface DomainView {
  readonly domain: string;
  readonly display: string;
  readonly projectId: string;
  readonly state: DomainState;
  readonly apex: boolean;
  /** The DNS records to set at the owner's DNS provider. */
  readonly records: readonly DnsRecordInstruction[];
  /** What the CNAME/ALIAS points at: the domain's own target. */
  readonly target: string;
  readonly failure?: DomainRecord['failure'];
  readonly misconfiguration?: DomainRecord['misconfiguration'];
  readonly diagnosis?: DomainRecord['diagnosis'];
  readonly attempt: number;
  readonly verifiedAt?: string;
  readonly activeAt?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export function domainView(record: DomainRecord): DomainView {
  return {
    domain: record.domain,
    display: record.display,
    projectId: record.projectId,
    state: record.state,
    apex: record.apex,
    records: record.records,
    target: record.target,
    ...(record.failure ? { failure: record.failure } : {}),
    ...(record.misconfiguration ? { misconfiguration: record.misconfiguration } : {}),
    ...(record.diagnosis ? { diagnosis: record.diagnosis } : {}),
    attempt: record.attempt,
    ...(record.verifiedAt ? { verifiedAt: record.verifiedAt } : {}),
    ...(record.activeAt ? { activeAt: record.activeAt } : {}),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/**
 * The records a claim must set: the routing record to its own target, and the ownership TXT record
 * when the name is an apex or another account verified it (or a parent of it) before; the TXT
 * record's note says which.
 */
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
