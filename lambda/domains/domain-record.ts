export interface DnsRecordInstruction {
  readonly type: 'CNAME' | 'ALIAS' | 'TXT';
  readonly purpose: 'routing' | 'ownership';
  /** Relative to the registrable domain ('@' for the apex). */
  readonly host: string;
  readonly fqdn: string;
  readonly value: string;
  readonly ttl: 3600;
  readonly note?: string;
}

/** Why verification failed (docs/owners.md, "Projects and custom domains"); each comes with what was observed and what to do. */
export type DnsFailureReason =
  | 'record_not_found' |
  'cname_mismatch' |
  'conflicting_record' |
  'dns_lookup_failed' |
  'apex_not_aliased' |
  'ownership_unproven';

/** What the release of a removed claim needs besides the domain. */
export interface PendingRelease {
  readonly projectId: string;
  /** The removed record's createdAt: one release per claim. */
  readonly claimedAt: string;
  /** When the domain was removed: the release gives up a bounded time after it. */
  readonly requestedAt: string;
}

/** Domain states (docs/owners.md, "Projects and custom domains"). */
export type DomainState =
  | 'pending_dns' |
  'verifying' |
  'dns_failed' |
  'issuing_certificate' |
  'active' |
  'dns_misconfigured' |
  'certificate_delayed' |
  'removed';

export interface DomainDiagnosis {
  readonly dnsStillVerifies: boolean;
  readonly dnsDetail?: string;
  readonly caaAllowsAmazon: boolean;
  /** The blocking CAA record and where it was found. */
  readonly caaRecord?: string;
  readonly caaFoundAt?: string;
  readonly caaDetail?: string;
  /** ACM's failure reason, if any. */
  readonly certificateFailure?: string;
  readonly checkedAt: string;
}

export interface DnsFailure {
  readonly reason: DnsFailureReason;
  readonly observed: readonly string[];
  readonly expected: string;
  readonly detail: string;
}

/** A drifted live domain (`dns_misconfigured`): served until `detachAt`, a grace period after `since`. */
export interface DomainMisconfiguration extends DnsFailure {
  readonly since: string;
  readonly detachAt: string;
  readonly checkedAt: string;
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
