import type { DeployListing } from '../lambda/projects/deploy-service.js';
import type { DeployRecord } from '../lambda/projects/project.js';
import type { ManifestEntry, StartedDeployBody, UploadInstruction } from '../contracts/deploys.js';
import type { RateLimits } from '../lib/config/index.js';
import type { DnsRecordInstruction } from '../lambda/domains/dns-records.js';
import type { DomainConfig } from '../lambda/domains/domain-config.js';
import type { DomainView } from '../lambda/domains/domain-service.js';
import type { AccountView, KeyUsageView, KeyView, MigrationReport, UsageView, WindowUsageView } from '../lambda/keys/account-service.js';
import type { ProjectView } from '../lambda/projects/project-service.js';
import type { UsageHistoryView } from '../lambda/usage-history/usage-history.js';

export type { AccountView, KeyUsageView, KeyView, MigrationReport, UsageHistoryView, UsageView, WindowUsageView };

/**
 * What the operator CLI needs of the platform: the methods of `AccountService`
 * (lambda/keys/account-service.ts), over HTTP (the local control API) or in process (a deployed
 * stack). Refusals are thrown as `CliError` with the platform's detail, code and status.
 */
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
  /** Accepted and refused requests per UTC day, per key and in all; `days` 1 to 30 (default 30). */
  usageHistory(accountId: string, days?: number): Promise<UsageHistoryView>;
  /** Moves accounts from before per-account limits (every account with keys without `accountId`); idempotent. */
  migrate(accountId?: string): Promise<MigrationReport>;
}

export type { DnsRecordInstruction, DomainConfig, DomainView, ProjectView };
export type { Redirect } from '../lambda/domains/domain-config.js';

/** One deploy in a project's history (DeployListing: and whether it is the one served). */
export type { DeployListing, DeployRecord };

/** A deleted project: the custom domains it released and until when its slug is held. */
export interface ProjectDeleted {
  readonly projectId: string;
  readonly deleted: true;
  readonly releasedDomains: string[];
  readonly slugHeldUntil: string;
}

/** A domain just added, and the DNS records its owner sets. */
export interface DomainAdded {
  readonly domain: DomainView;
  readonly records: DnsRecordInstruction[];
}

export interface DomainRemoved {
  readonly domain: string;
  readonly removed: true;
  /** Set when the domain was live with no redirect from it. */
  readonly warning?: string;
}

/** A drift check of every live domain, started (its execution runs on). */
export interface DriftCheckStarted {
  readonly execution: string;
  readonly startedAt: string;
}

/** A redirect entry to add; the platform defaults `status` to 301. */
export interface RedirectInput {
  readonly from: string;
  readonly to: string;
  readonly status?: number;
}

/**
 * Projects, deploys and custom domains: the control API's routes under
 * `/accounts/{accountId}/projects` (local/control-api.ts). Only the local platform has them for the
 * CLI; on AWS owners reach the same routes through the dashboard's API (Cognito). Refusals are `CliError`s too.
 */
export interface ProjectsClient {
  createProject(accountId: string, input: { slug: string; name?: string }): Promise<ProjectView>;
  listProjects(accountId: string): Promise<ProjectView[]>;
  getProject(accountId: string, projectId: string): Promise<ProjectView>;
  renameProject(accountId: string, projectId: string, name: string): Promise<ProjectView>;
  deleteProject(accountId: string, projectId: string): Promise<ProjectDeleted>;
  /** The two calls of a deploy (contracts/deploys.ts): the manifest, then finalize. */
  startDeploy(accountId: string, projectId: string, files: readonly ManifestEntry[]): Promise<StartedDeployBody>;
  finalizeDeploy(
    accountId: string,
    projectId: string,
    deployId: string,
  ): Promise<{ missing?: UploadInstruction[]; deploy?: DeployRecord }>;
  listDeploys(accountId: string, projectId: string): Promise<DeployListing[]>;
  rollback(accountId: string, projectId: string, deployId: string): Promise<DeployListing>;
  addDomain(accountId: string, projectId: string, domain: string): Promise<DomainAdded>;
  listDomains(accountId: string, projectId: string): Promise<DomainView[]>;
  getDomain(accountId: string, projectId: string, domain: string): Promise<DomainView>;
  /** Verify (or Re-verify): starts a fresh attempt of the domain flow; answers at once (202). */
  verifyDomain(accountId: string, projectId: string, domain: string, again?: boolean): Promise<DomainView>;
  removeDomain(accountId: string, projectId: string, domain: string): Promise<DomainRemoved>;
  setPrimaryDomain(accountId: string, projectId: string, domain: string): Promise<DomainConfig>;
  addRedirect(accountId: string, projectId: string, redirect: RedirectInput): Promise<DomainConfig>;
  removeRedirect(accountId: string, projectId: string, from: string): Promise<DomainConfig>;
  /** Operators: starts a drift check of every live domain now (202). */
  checkDomainDrift(): Promise<DriftCheckStarted>;
}

/** A webhook endpoint as the control API shows it (openapi/control-api.yaml, `Webhook`). */
export interface WebhookEndpointView {
  readonly id: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly status: 'enabled' | 'disabled';
  readonly createdAt: string;
  readonly failingSince?: string;
  readonly disabledAt?: string;
  readonly disabledReason?: string;
}

/**
 * Webhook endpoints of an account: the control API's routes under `/accounts/{accountId}/webhooks`
 * (docs/webhooks.md). The local control API for the CLI; on AWS owners manage them in the dashboard.
 */
export interface WebhooksClient {
  listWebhooks(accountId: string): Promise<WebhookEndpointView[]>;
  /** The secret is in this result and nowhere else. */
  createWebhook(
    accountId: string,
    input: { url: string; events?: readonly string[] },
  ): Promise<{ webhook: WebhookEndpointView; secret: string }>;
  removeWebhook(accountId: string, webhookId: string): Promise<{ id: string; removed: true }>;
  rotateWebhookSecret(
    accountId: string,
    webhookId: string,
  ): Promise<{ webhook: WebhookEndpointView; secret: string; previousSecretExpiresAt: string }>;
  sendWebhookTest(accountId: string, webhookId: string): Promise<{ eventId: string; type: string }>;
}
