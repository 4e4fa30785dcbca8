// Shapes of the control API (openapi/control-api.yaml) that the dashboard reads.

export type PlanId = 'free' | 'pro' | 'business' | 'enterprise';

export interface Limits {
  readonly perMinute: number;
  readonly perDay: number;
}

export interface Account {
  readonly accountId: string;
  readonly name: string;
  readonly plan: PlanId;
  readonly limits: Limits;
  readonly customLimits: boolean;
  readonly createdAt: string;
  readonly updatedAt?: string;
}

export interface Me {
  readonly ownerId: string;
  readonly email: string;
  readonly account: Account;
}

export interface Plan {
  readonly id: PlanId;
  readonly displayName: string;
  readonly limits: Limits;
  readonly customLimits: boolean;
  readonly customDomains: boolean;
}

export interface Key {
  readonly keyId: string;
  readonly name: string;
  readonly prefix: string;
  readonly last4: string;
  readonly status: 'active' | 'revoked';
  readonly createdAt: string;
  readonly lastUsedAt?: string;
  readonly revokedAt?: string;
  /** While an active key is banned: when the ban ends. */
  readonly bannedUntil?: string;
}

export interface CreatedKey {
  readonly secret: string;
  readonly key: Key;
}

/** One window of the account's budget (every key of the account draws on it). */
export interface WindowUsage {
  readonly used: number;
  readonly limit: number;
  readonly remaining: number;
  readonly resetsAt: string;
}

/** A key with its share of the account's usage, and its ban (bans are per key). */
export interface KeyUsage extends Key {
  readonly used: { readonly minute: number; readonly day: number };
}

export interface Usage {
  readonly accountId: string;
  readonly plan: PlanId;
  readonly limits: Limits;
  readonly minute: WindowUsage;
  readonly day: WindowUsage;
  readonly limiterShards: number;
  readonly keys: readonly KeyUsage[];
}

export interface Deploy {
  readonly deployId: string;
  readonly state: 'in_progress' | 'succeeded' | 'failed';
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly fileCount?: number;
  readonly bytes?: number;
  readonly error?: string;
}

/** One file of a deploy: a path inside the site (e.g. `assets/app.css`) and its bytes in base64. */
export interface DeployFile {
  readonly path: string;
  readonly content: string;
}

export type RedirectStatus = 301 | 302 | 307 | 308;
export const REDIRECT_STATUSES: readonly RedirectStatus[] = [301, 302, 307, 308];

export interface Redirect {
  readonly from: string;
  readonly to: string;
  readonly status: RedirectStatus;
}

export interface DomainConfig {
  readonly primary: string;
  readonly redirects: readonly Redirect[];
}

export interface Project {
  readonly projectId: string;
  readonly accountId: string;
  readonly slug: string;
  readonly name: string;
  readonly defaultDomain: string;
  readonly url: string;
  readonly deployState: 'none' | 'in_progress' | 'succeeded' | 'failed';
  readonly liveDeployId?: string;
  readonly lastDeploy?: Deploy;
  readonly domains: DomainConfig;
  readonly createdAt: string;
}

export interface DnsRecordInstruction {
  readonly type: 'CNAME' | 'ALIAS' | 'TXT';
  /** `routing` points the domain at its target; `ownership` (TXT) proves control of its DNS. */
  readonly purpose: 'routing' | 'ownership';
  readonly host: string;
  readonly fqdn: string;
  readonly value: string;
  readonly ttl: number;
  readonly note?: string;
}

export type DomainState =
  | 'pending_dns' |
  'verifying' |
  'dns_failed' |
  'issuing_certificate' |
  'active' |
  'dns_misconfigured' |
  'certificate_delayed' |
  'removed';

export type DnsFailureReason =
  | 'record_not_found' |
  'cname_mismatch' |
  'conflicting_record' |
  'dns_lookup_failed' |
  'apex_not_aliased' |
  'ownership_unproven';

export interface DnsFailure {
  readonly reason: DnsFailureReason;
  readonly observed: readonly string[];
  readonly expected: string;
  readonly detail: string;
}

/** A live domain whose DNS no longer points at its target: served until `detachAt`. */
export interface DomainMisconfiguration extends DnsFailure {
  readonly since: string;
  readonly detachAt: string;
  readonly checkedAt: string;
}

export interface DomainDiagnosis {
  readonly dnsStillVerifies: boolean;
  readonly dnsDetail?: string;
  readonly caaAllowsAmazon: boolean;
  readonly caaRecord?: string;
  readonly caaFoundAt?: string;
  readonly caaDetail?: string;
  readonly certificateFailure?: string;
  readonly checkedAt: string;
}

export interface Domain {
  readonly domain: string;
  readonly display: string;
  readonly projectId: string;
  readonly state: DomainState;
  readonly apex: boolean;
  readonly records: readonly DnsRecordInstruction[];
  /** What the CNAME/ALIAS points at: the domain's own target, or the shared host for an older domain. */
  readonly target: string;
  /** Only while the domain still uses the shared host: the records of its own target. */
  readonly switchTo?: readonly DnsRecordInstruction[];
  readonly failure?: DnsFailure;
  readonly misconfiguration?: DomainMisconfiguration;
  readonly diagnosis?: DomainDiagnosis;
  readonly attempt: number;
  readonly verifiedAt?: string;
  readonly activeAt?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface AddedDomain {
  readonly domain: Domain;
  readonly records: readonly DnsRecordInstruction[];
}

export interface RemovedDomain {
  readonly domain: string;
  readonly removed: true;
  readonly warning?: string;
}

/** An RFC 9457 problem document as the API answers it. */
export interface Problem {
  readonly type?: string;
  readonly title?: string;
  readonly status: number;
  readonly detail?: string;
  readonly code?: string;
  readonly requestId?: string;
  readonly errors?: ReadonlyArray<{ readonly field: string; readonly message: string }>;
}

// Usage history (GET /accounts/{accountId}/usage/history, openapi/control-api.yaml UsageHistory).

export interface UsageTotals {
  readonly accepted: number;
  readonly rateLimited: number;
  readonly banned: number;
}

export interface DayUsage extends UsageTotals {
  /** The UTC day, YYYY-MM-DD. */
  readonly date: string;
}

export interface KeyUsageHistory {
  readonly keyId: string;
  readonly name: string;
  readonly prefix: string;
  readonly last4: string;
  readonly status: 'active' | 'revoked';
  readonly revokedAt?: string;
  readonly totals: UsageTotals;
  readonly days: readonly DayUsage[];
}

export interface UsageHistory {
  readonly accountId: string;
  readonly from: string;
  readonly to: string;
  /** Always true: refused counts are lower bounds. */
  readonly refusalsApproximate: boolean;
  readonly totals: UsageTotals;
  readonly days: readonly DayUsage[];
  readonly keys: readonly KeyUsageHistory[];
}
