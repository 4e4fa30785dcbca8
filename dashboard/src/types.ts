// Names for the control API's generated schemas (contracts/openapi/control-api.ts), never a copy of one.
import type { components } from '../../contracts/openapi/control-api';

type Schemas = components['schemas'];

export type PlanId = Schemas['PlanId'];
export type Limits = Schemas['Limits'];
export type Account = Schemas['Account'];
export type UpgradeRequest = Schemas['UpgradeRequest'];
export type Me = Schemas['Me'];
export type Plan = Schemas['Plan'];
export type Key = Schemas['Key'];
export type CreatedKey = Schemas['CreatedKey'];
export type WindowUsage = Schemas['WindowUsage'];
export type Usage = Schemas['Usage'];
export type Deploy = Schemas['Deploy'];
export type DeployListing = Schemas['DeployListing'];
export type ManifestFile = Schemas['ManifestFile'];
export type RedirectStatus = Schemas['RedirectStatus'];
export type Redirect = Schemas['Redirect'];
export type DomainConfig = Schemas['DomainConfig'];
export type Project = Schemas['Project'];
export type DnsRecordInstruction = Schemas['DnsRecordInstruction'];
export type DomainState = Schemas['DomainState'];
export type DnsFailureReason = Schemas['DnsFailureReason'];
export type DnsFailure = Schemas['DnsFailure'];
export type DomainMisconfiguration = Schemas['DomainMisconfiguration'];
export type DomainDiagnosis = Schemas['DomainDiagnosis'];
export type Domain = Schemas['Domain'];
export type Problem = Schemas['Problem'];
export type UsageTotals = Schemas['UsageTotals'];
export type DayUsage = Schemas['DayUsage'];
export type KeyUsageHistory = Schemas['KeyUsageHistory'];
export type UsageHistory = Schemas['UsageHistory'];

/** The redirect statuses offered in the form, in order (every value of the document's enum). */
export const REDIRECT_STATUSES = [301, 302, 307, 308] as const satisfies readonly RedirectStatus[];
