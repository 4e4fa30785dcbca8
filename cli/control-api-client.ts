import { STATUS_CODES } from 'node:http';
import type { RateLimits } from '../lib/config/index.js';
import type {
  AccountView,
  OperatorClient,
  DeployListing,
  DeployRecord,
  DomainAdded,
  DomainConfig,
  DomainRemoved,
  DriftCheckStarted,
  DomainView,
  KeyView,
  ProjectDeleted,
  ProjectsClient,
  WebhookEndpointView,
  WebhooksClient,
  ProjectView,
  RedirectInput,
  MigrationReport,
  UsageHistoryView,
  UsageView,
} from './operator-client.js';
import type { ManifestEntry, StartedDeployBody, UploadInstruction } from '../contracts/deploys.js';
import { CliError } from './errors.js';

export const DEFAULT_CONTROL_URL = 'http://127.0.0.1:3001';

/** Codes the platform itself answers with; any other 404/405 means the URL is not its API. */
const CONTROL_API_CODES = new Set([
  'invalid_request',
  'account_not_found',
  'key_not_found',
  'key_revoked',
  'project_not_found',
  'slug_taken',
  'deploy_in_progress',
  'deploy_failed',
  'deploy_not_found',
  'deploy_not_rollbackable',
  'files_missing',
  'too_many_files',
  'file_too_large',
  'deploy_too_large',
  'slug_held',
  'domain_not_found',
  'plan_required',
  'project_not_deployed',
  'domain_taken',
  'invalid_domain',
  'invalid_config',
  'domain_in_use',
]);

const START_HINT = 'is the local platform running? start it with npm start (or pass --url, or --stack/--outputs for a deployed stack)';
const URL_HINT = 'is --url the control API? npm start prints it as "Control API at …"';

export interface ControlApiClientOptions {
  /** @default 30 000 */
  readonly timeoutMs?: number;
  /** @default the global fetch */
  readonly fetch?: typeof fetch;
}

/** The platform over the local control API (local/control-api.ts): accounts and keys, projects and domains. */
export class ControlApiClient implements OperatorClient, ProjectsClient, WebhooksClient {
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly options: ControlApiClientOptions = {},
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  createAccount(input: { name: string; plan: string; limits?: RateLimits }): Promise<AccountView> {
    return this.request('POST', '/accounts', input);
  }

  getAccount(accountId: string): Promise<AccountView> {
    return this.request('GET', `/accounts/${seg(accountId)}`);
  }

  createKey(accountId: string, name: string): Promise<{ secret: string; key: KeyView }> {
    return this.request('POST', `/accounts/${seg(accountId)}/keys`, { name });
  }

  async listKeys(accountId: string): Promise<KeyView[]> {
    const body = await this.request<{ keys?: KeyView[] }>('GET', `/accounts/${seg(accountId)}/keys`);
    return this.list(body.keys, 'keys');
  }

  revokeKey(accountId: string, keyId: string): Promise<KeyView> {
    return this.request('DELETE', `/accounts/${seg(accountId)}/keys/${seg(keyId)}`);
  }

  setPlan(accountId: string, input: { plan: string; limits?: RateLimits }): Promise<AccountView> {
    return this.request('PUT', `/accounts/${seg(accountId)}/plan`, input);
  }

  liftBan(accountId: string, keyId: string): Promise<{ keyId: string; wasBanned: boolean }> {
    return this.request('DELETE', `/accounts/${seg(accountId)}/keys/${seg(keyId)}/ban`);
  }

  usage(accountId: string): Promise<UsageView> {
    return this.request('GET', `/accounts/${seg(accountId)}/usage`);
  }

  usageHistory(accountId: string, days?: number): Promise<UsageHistoryView> {
    return this.request('GET', `/accounts/${seg(accountId)}/usage/history${days === undefined ? '' : `?days=${days}`}`);
  }

  migrate(accountId?: string): Promise<MigrationReport> {
    return this.request('POST', '/maintenance/migrate-accounts', accountId === undefined ? {} : { accountId });
  }

  createProject(accountId: string, input: { slug: string; name?: string }): Promise<ProjectView> {
    return this.request('POST', `/accounts/${seg(accountId)}/projects`, input);
  }

  async listProjects(accountId: string): Promise<ProjectView[]> {
    const body = await this.request<{ projects?: ProjectView[] }>('GET', `/accounts/${seg(accountId)}/projects`);
    return this.list(body.projects, 'projects');
  }

  getProject(accountId: string, projectId: string): Promise<ProjectView> {
    return this.request('GET', projectPath(accountId, projectId));
  }

  renameProject(accountId: string, projectId: string, name: string): Promise<ProjectView> {
    return this.request('PATCH', projectPath(accountId, projectId), { name });
  }

  deleteProject(accountId: string, projectId: string): Promise<ProjectDeleted> {
    return this.request('DELETE', projectPath(accountId, projectId));
  }

  startDeploy(accountId: string, projectId: string, files: readonly ManifestEntry[]): Promise<StartedDeployBody> {
    return this.request('POST', `${projectPath(accountId, projectId)}/deploys`, { files });
  }

  /** A `files_missing` refusal is an answer here: it carries fresh URLs for what is missing. */
  async finalizeDeploy(accountId: string, projectId: string, deployId: string): Promise<FinalizeAnswer> {
    const path = `${projectPath(accountId, projectId)}/deploys/${seg(deployId)}/finalize`;
    type Answer = DeployRecord & { code?: string; uploads?: UploadInstruction[] };
    const answer = await this.request<Answer>('POST', path, undefined, 'files_missing');
    return answer.code === 'files_missing' ? { missing: answer.uploads ?? [] } : { deploy: answer };
  }

  async listDeploys(accountId: string, projectId: string): Promise<DeployListing[]> {
    const body = await this.request<{ deploys?: DeployListing[] }>('GET', `${projectPath(accountId, projectId)}/deploys`);
    return this.list(body.deploys, 'deploys');
  }

  rollback(accountId: string, projectId: string, deployId: string): Promise<DeployListing> {
    return this.request('POST', `${projectPath(accountId, projectId)}/deploys/${seg(deployId)}/rollback`);
  }

  addDomain(accountId: string, projectId: string, domain: string): Promise<DomainAdded> {
    return this.request('POST', `${projectPath(accountId, projectId)}/domains`, { domain });
  }

  async listDomains(accountId: string, projectId: string): Promise<DomainView[]> {
    const body = await this.request<{ domains?: DomainView[] }>('GET', `${projectPath(accountId, projectId)}/domains`);
    return this.list(body.domains, 'domains');
  }

  getDomain(accountId: string, projectId: string, domain: string): Promise<DomainView> {
    return this.request('GET', `${projectPath(accountId, projectId)}/domains/${seg(domain)}`);
  }

  verifyDomain(accountId: string, projectId: string, domain: string, again = false): Promise<DomainView> {
    return this.request('POST', `${projectPath(accountId, projectId)}/domains/${seg(domain)}/${again ? 'reverify' : 'verify'}`);
  }

  removeDomain(accountId: string, projectId: string, domain: string): Promise<DomainRemoved> {
    return this.request('DELETE', `${projectPath(accountId, projectId)}/domains/${seg(domain)}`);
  }

  setPrimaryDomain(accountId: string, projectId: string, domain: string): Promise<DomainConfig> {
    return this.request('PUT', `${projectPath(accountId, projectId)}/domain-config/primary`, { domain });
  }

  addRedirect(accountId: string, projectId: string, redirect: RedirectInput): Promise<DomainConfig> {
    return this.request('POST', `${projectPath(accountId, projectId)}/domain-config/redirects`, redirect);
  }

  removeRedirect(accountId: string, projectId: string, from: string): Promise<DomainConfig> {
    return this.request('DELETE', `${projectPath(accountId, projectId)}/domain-config/redirects/${seg(from)}`);
  }

  checkDomainDrift(): Promise<DriftCheckStarted> {
    return this.request('POST', '/maintenance/domain-drift-check');
  }

  async listWebhooks(accountId: string): Promise<WebhookEndpointView[]> {
    const body = await this.request<{ webhooks?: WebhookEndpointView[] }>('GET', `/accounts/${seg(accountId)}/webhooks`);
    return this.list(body.webhooks, 'webhooks');
  }

  createWebhook(accountId: string, input: { url: string; events?: readonly string[] }) {
    return this.request<{ webhook: WebhookEndpointView; secret: string }>('POST', `/accounts/${seg(accountId)}/webhooks`, input);
  }

  removeWebhook(accountId: string, webhookId: string): Promise<{ id: string; removed: true }> {
    return this.request('DELETE', `/accounts/${seg(accountId)}/webhooks/${seg(webhookId)}`);
  }

  rotateWebhookSecret(accountId: string, webhookId: string) {
    return this.request<{ webhook: WebhookEndpointView; secret: string; previousSecretExpiresAt: string }>(
      'POST',
      `/accounts/${seg(accountId)}/webhooks/${seg(webhookId)}/rotate-secret`,
    );
  }

  sendWebhookTest(accountId: string, webhookId: string): Promise<{ eventId: string; type: string }> {
    return this.request('POST', `/accounts/${seg(accountId)}/webhooks/${seg(webhookId)}/test`);
  }

  private list<T>(value: T[] | undefined, name: string): T[] {
    if (!Array.isArray(value)) throw new CliError(`unexpected answer from ${this.baseUrl}: no "${name}" list`, { hint: URL_HINT });
    return value;
  }

  /** `answeredProblem`: a refusal with this code is returned as the answer rather than thrown. */
  private async request<T>(method: string, path: string, body?: unknown, answeredProblem?: string): Promise<T> {
    const url = `${this.baseUrl}${path}`;
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    let res: Response;
    try {
      res = await (this.options.fetch ?? fetch)(url, {
        method,
        headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw networkError(error, this.baseUrl, timeoutMs);
    }

    const text = await res.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }

    if (!res.ok) {
      const problem = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
      const code = typeof problem.code === 'string' ? problem.code : undefined;
      if (answeredProblem !== undefined && code === answeredProblem) return problem as T;
      const detail = typeof problem.detail === 'string' ? problem.detail : `HTTP ${res.status} ${res.statusText || STATUS_CODES[res.status] || ''}`.trim();
      type FieldError = { field: string; message: string };
      const errors = Array.isArray(problem.errors) ? (problem.errors as FieldError[]) : undefined;
      // A 401/403/404/405 without a platform code: the URL is some other server (the local
      // control API has no authentication), e.g. the Messages API's port.
      const foreign = [401, 403, 404, 405].includes(res.status) && !CONTROL_API_CODES.has(code ?? '');
      throw new CliError(detail, {
        status: res.status,
        ...(code ? { code } : {}),
        ...(errors ? { errors } : {}),
        ...(foreign ? { hint: URL_HINT } : {}),
      });
    }
    if (typeof parsed !== 'object' || parsed === null) {
      throw new CliError(`unexpected answer from ${url}: not a JSON document`, { status: res.status, hint: URL_HINT });
    }
    return parsed as T;
  }
}

type FinalizeAnswer = { missing?: UploadInstruction[]; deploy?: DeployRecord };
const seg = (value: string) => encodeURIComponent(value);
const projectPath = (accountId: string, projectId: string) => `/accounts/${seg(accountId)}/projects/${seg(projectId)}`;

/** A failed fetch: connection refused, unknown host, timeout… as one clear error. */
function networkError(error: unknown, baseUrl: string, timeoutMs: number): CliError {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new CliError(`the control API at ${baseUrl} did not answer within ${timeoutMs / 1000} s`, {
      code: 'timeout',
      cause: error,
    });
  }
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const code = cause?.code ?? (error as { code?: string } | null)?.code;
  const reason = code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new CliError(`cannot reach the control API at ${baseUrl} (${reason})`, {
    code: 'network',
    cause: error,
    hint: code === 'ECONNREFUSED' ? START_HINT : 'check --url (or PLATFORM_CONTROL_URL)',
  });
}
