import type { components } from '../../contracts/openapi/control-api.js';

// What owners see of a domain is the control API's (openapi/control-api.yaml, docs/owners.md).
type Schemas = components['schemas'];
export type DnsRecordInstruction = Schemas['DnsRecordInstruction'];
export type DnsFailure = Schemas['DnsFailure'];
/** A drifted live domain (`dns_misconfigured`): served until `detachAt`, a grace period after `since`. */
export type DomainMisconfiguration = Schemas['DomainMisconfiguration'];
export type DomainDiagnosis = Schemas['DomainDiagnosis'];
export type DomainState = Schemas['DomainState'];

/** What the release of a removed claim needs besides the domain. */
export interface PendingRelease {
  readonly projectId: string;
  /** The removed record's createdAt: one release per claim. */
  readonly claimedAt: string;
  /** When the domain was removed: the release gives up a bounded time after it. */
  readonly requestedAt: string;
}

export interface DomainRecord {
  /** Normalised ASCII name; the table key, so one project per domain platform-wide. */
  readonly domain: string;
  readonly display: string;
  readonly projectId: string;
  readonly accountId: string;
  readonly apex: boolean;
  readonly state: DomainState;
  readonly records: readonly DnsRecordInstruction[];
  /** This claim's own `<token>.edge.<platform domain>`: new with every claim of the name. */
  readonly target: string;
  /** For the ownership TXT record (apex, or a name another account held). */
  readonly ownershipToken: string;
  /** Accounts whose claims of this name passed verification, kept across claims. */
  readonly verifiedBy?: readonly string[];
  /** Each Verify starts attempt n+1; the flow's execution name includes it. */
  readonly attempt: number;
  readonly failure?: DnsFailure;
  readonly misconfiguration?: DomainMisconfiguration;
  readonly diagnosis?: DomainDiagnosis;
  readonly verifiedAt?: string;
  readonly activeAt?: string;
  /** Set when the drift check detached the domain. */
  readonly detachedAt?: string;
  /** Cleared once the release has started; one left behind is started by the drift sweep. */
  readonly pendingRelease?: PendingRelease;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** Whether the edge serves the domain: active once in this claim, and not removed since. */
export const isLive = (record: Pick<DomainRecord, 'state' | 'activeAt'>): boolean =>
  record.state === 'active' || (record.activeAt !== undefined && record.state !== 'removed');
