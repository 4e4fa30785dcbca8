import type { components } from '../contracts/openapi/control-api.js';

/** Read-only at every depth: the services answer read-only views, and nothing here changes one. */
type Immutable<T> = T extends (infer E)[]
  ? readonly Immutable<E>[]
  : T extends object ? { readonly [K in keyof T]: Immutable<T[K]> } : T;
/** The control API's shapes, generated from openapi/control-api.yaml (npm run generate:api). */
type Schemas = { readonly [K in keyof components['schemas']]: Immutable<components['schemas'][K]> };
export type AccountView = Schemas['Account'];
export type KeyView = Schemas['Key'];
export type UsageView = Schemas['Usage'];
export type UsageHistoryView = Schemas['UsageHistory'];
export type RateLimits = Schemas['Limits'];
export type ProjectView = Schemas['Project'];
export type DomainView = Schemas['Domain'];
export type DomainConfig = Schemas['DomainConfig'];
export type DnsRecordInstruction = Schemas['DnsRecordInstruction'];
export type DriftCheckStarted = Schemas['DriftCheckStarted'];
export type DeployListing = Schemas['DeployListing'];
export type WebhookView = Schemas['Webhook'];
export type PendingUpgradeRequest = Schemas['PendingUpgradeRequest'];

/** `AccountService`'s methods over the local control API or in process on a deployed stack; refusals are CliErrors. */
export interface OperatorClient {
  createAccount(input: { name: string; plan: string; limits?: RateLimits }): Promise<AccountView>;
  getAccount(accountId: string): Promise<AccountView>;
  /** The secret is in this result and nowhere else, ever. */
  createKey(accountId: string, name: string): Promise<{ secret: string; key: KeyView }>;
  listKeys(accountId: string): Promise<KeyView[]>;
  revokeKey(accountId: string, keyId: string): Promise<KeyView>;
  setPlan(accountId: string, input: { plan: string; limits?: RateLimits }): Promise<AccountView>;
  liftBan(accountId: string, keyId: string): Promise<{ keyId: string; wasBanned: boolean }>;
  usage(accountId: string): Promise<UsageView>;
  usageHistory(accountId: string, days?: number): Promise<UsageHistoryView>;
  upgradeRequests(): Promise<PendingUpgradeRequest[]>;
}
