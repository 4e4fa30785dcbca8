import type { DnsRecordInstruction } from './dns-records.js';
import type { DnsFailureReason } from './dns-verification.js';

/** Domain states (design §1). */
export type DomainState =
  | 'pending_dns' |
  'verifying' |
  'dns_failed' |
  'issuing_certificate' |
  'active' |
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

export interface DomainRecord {
  /** Normalised ASCII name; the table key, so one project per domain platform-wide. */
  readonly domain: string;
  readonly display: string;
  readonly projectId: string;
  readonly accountId: string;
  readonly apex: boolean;
  readonly state: DomainState;
  /** The records the owner sets, as shown when the domain was added. */
  readonly records: readonly DnsRecordInstruction[];
  /** Each Verify/Re-verify starts attempt n+1; the flow's execution name includes it. */
  readonly attempt: number;
  /** Why DNS verification failed, with what was observed (dns_failed). */
  readonly failure?: {
    readonly reason: DnsFailureReason;
    readonly observed: readonly string[];
    readonly expected: string;
    readonly detail: string;
  };
  readonly diagnosis?: DomainDiagnosis;
  readonly verifiedAt?: string;
  readonly activeAt?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}
