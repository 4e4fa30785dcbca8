export interface DnsRecordInstruction {
  readonly type: 'CNAME' | 'ALIAS' | 'TXT';
  /** What the record is for: `routing` points the domain at its target, `ownership` proves control of it. */
  readonly purpose: 'routing' | 'ownership';
  /** The name to enter at the DNS provider, relative to the registrable domain ('@' for the apex). */
  readonly host: string;
  /** The fully qualified name the record is for. */
  readonly fqdn: string;
  readonly value: string;
  /** Always the displayed 3600 (RECORD_TTL_SECONDS in dns-records.ts; the spec fixes it). */
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

/** What the release of a removed claim needs besides the domain (TenantReleaseRequest in ports.ts). */
export interface PendingRelease {
  readonly projectId: string;
  readonly slug: string;
  /** The removed record's createdAt: one release per claim of the domain. */
  readonly claimedAt: string;
  /** When the domain was removed (ISO 8601): the release gives up a bounded time after it. */
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
  /** Does the domain still verify (DNS)? */
  readonly dnsStillVerifies: boolean;
  readonly dnsDetail?: string;
  /** Does CAA allow Amazon's CA? When not, the blocking record and where it was found. */
  readonly caaAllowsAmazon: boolean;
  readonly caaRecord?: string;
  readonly caaFoundAt?: string;
  readonly caaDetail?: string;
  /** What the certificate authority said, when it said something (ACM failure reason). */
  readonly certificateFailure?: string;
  readonly checkedAt: string;
}

/** Why a DNS check failed, with what was observed and what to do. */
export interface DnsFailure {
  readonly reason: DnsFailureReason;
  readonly observed: readonly string[];
  readonly expected: string;
  readonly detail: string;
}

/**
 * A live domain whose DNS no longer points at its target (state `dns_misconfigured`): it is still
 * served until `detachAt`, then detached from its project and its tenant released.
 */
export interface DomainMisconfiguration extends DnsFailure {
  /** The first check that found it wrong; the grace period runs from here. */
  readonly since: string;
  readonly detachAt: string;
  /** The latest check (what `observed` is from). */
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
  /** The records the owner sets: what Verify checks and what the drift check compares against. */
  readonly records: readonly DnsRecordInstruction[];
  /**
   * This claim's own DNS target, `<token>.edge.<platform domain>`. A new claim of the name gets a new
   * one, so a record left behind by an earlier holder points at a target that proves nothing now.
   */
  readonly target: string;
  /** This claim's token for the ownership TXT record (apex, or a name another account held). */
  readonly ownershipToken: string;
  /**
   * Accounts whose claims of this exact name passed DNS verification. Carried from one claim to the
   * next (the store keeps it when a removed name is claimed again): the history a new claimant of
   * the name or of a subdomain of it is checked against.
   */
  readonly verifiedBy?: readonly string[];
  /** Each Verify/Re-verify starts attempt n+1; the flow's execution name includes it. */
  readonly attempt: number;
  /** Why DNS verification failed, with what was observed (dns_failed). */
  readonly failure?: DnsFailure;
  /** What the drift check (or a failed Re-verify of a live domain) found (dns_misconfigured). */
  readonly misconfiguration?: DomainMisconfiguration;
  readonly diagnosis?: DomainDiagnosis;
  readonly verifiedAt?: string;
  readonly activeAt?: string;
  /** Set when the drift check detached the domain after its grace period (state removed). */
  readonly detachedAt?: string;
  /**
   * The release of this removed claim's tenant, written with the removal and cleared once its
   * execution has started: one left behind (StartExecution failed) is started by the drift sweep.
   */
  readonly pendingRelease?: PendingRelease;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * Whether the edge serves the domain: it became active once in this claim and is not removed. A
 * Re-verify, a delayed certificate or a drifted record does not stop it serving; only a removal or
 * a detachment does.
 */
export const isLive = (record: Pick<DomainRecord, 'state' | 'activeAt'>): boolean =>
  record.state === 'active' || (record.activeAt !== undefined && record.state !== 'removed');
