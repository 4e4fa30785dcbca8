import { STATUS_CODES } from 'node:http';
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../contracts/openapi/control-api.js';
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
  PendingUpgradeRequest,
  ProjectsClient,
  WebhookEndpointView,
  WebhooksClient,
  ProjectView,
  RateLimits,
  RedirectInput,
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
  readonly fetch?: (request: Request) => Promise<Response>;
}

/** What an openapi-fetch call settles to. */
type Settled<T> = { data?: T; error?: unknown; response: Response };

/**
 * The platform over the local control API (local/control-api.ts): accounts and keys, projects and
 * domains. Requests and answers are typed by openapi/control-api.yaml (contracts/openapi/, generated),
 * sent with openapi-fetch.
 */
export class ControlApiClient implements OperatorClient, ProjectsClient, WebhooksClient {
  private readonly baseUrl: string;
  private readonly api: Client<paths>;

  constructor(
    baseUrl: string,
    private readonly options: ControlApiClientOptions = {},
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.api = createClient<paths>({ baseUrl: this.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  }

  createAccount(input: { name: string; plan: string; limits?: RateLimits }): Promise<AccountView> {
    return this.answer((init) => this.api.POST('/accounts', { body: input as paths['/accounts']['post']['requestBody']['content']['application/json'], ...init }));
  }

  getAccount(accountId: string): Promise<AccountView> {
    return this.answer((init) => this.api.GET('/accounts/{accountId}', { params: { path: { accountId } }, ...init }));
  }

  createKey(accountId: string, name: string): Promise<{ secret: string; key: KeyView }> {
    return this.answer((init) => this.api.POST('/accounts/{accountId}/keys', { params: { path: { accountId } }, body: { name }, ...init }));
  }

  async listKeys(accountId: string): Promise<KeyView[]> {
    const body = await this.answer((init) => this.api.GET('/accounts/{accountId}/keys', { params: { path: { accountId } }, ...init }));
    return this.list(body.keys, 'keys');
  }

  revokeKey(accountId: string, keyId: string): Promise<KeyView> {
    return this.answer((init) => this.api.DELETE('/accounts/{accountId}/keys/{keyId}', { params: { path: { accountId, keyId } }, ...init }));
  }

  setPlan(accountId: string, input: { plan: string; limits?: RateLimits }): Promise<AccountView> {
    const body = input as paths['/accounts/{accountId}/plan']['put']['requestBody']['content']['application/json'];
    return this.answer((init) => this.api.PUT('/accounts/{accountId}/plan', { params: { path: { accountId } }, body, ...init }));
  }

  liftBan(accountId: string, keyId: string): Promise<{ keyId: string; wasBanned: boolean }> {
    return this.answer((init) => this.api.DELETE('/accounts/{accountId}/keys/{keyId}/ban', { params: { path: { accountId, keyId } }, ...init }));
  }

  usage(accountId: string): Promise<UsageView> {
    return this.answer((init) => this.api.GET('/accounts/{accountId}/usage', { params: { path: { accountId } }, ...init }));
  }

  usageHistory(accountId: string, days?: number): Promise<UsageHistoryView> {
    const params = { path: { accountId }, ...(days === undefined ? {} : { query: { days } }) };
    return this.answer((init) => this.api.GET('/accounts/{accountId}/usage/history', { params, ...init }));
  }

  async upgradeRequests(): Promise<PendingUpgradeRequest[]> {
    const body = await this.answer((init) => this.api.GET('/upgrade-requests', init));
    return this.list(body.upgradeRequests, 'upgradeRequests');
  }

  createProject(accountId: string, input: { slug: string; name?: string }): Promise<ProjectView> {
    return this.answer((init) => this.api.POST('/accounts/{accountId}/projects', { params: { path: { accountId } }, body: input, ...init }));
  }

  async listProjects(accountId: string): Promise<ProjectView[]> {
    const body = await this.answer((init) => this.api.GET('/accounts/{accountId}/projects', { params: { path: { accountId } }, ...init }));
    return this.list(body.projects, 'projects');
  }

  getProject(accountId: string, projectId: string): Promise<ProjectView> {
    return this.answer((init) => this.api.GET('/accounts/{accountId}/projects/{projectId}', { params: { path: { accountId, projectId } }, ...init }));
  }

  renameProject(accountId: string, projectId: string, name: string): Promise<ProjectView> {
    return this.answer((init) =>
      this.api.PATCH('/accounts/{accountId}/projects/{projectId}', { params: { path: { accountId, projectId } }, body: { name }, ...init }),
    );
  }

  deleteProject(accountId: string, projectId: string): Promise<ProjectDeleted> {
    return this.answer((init) => this.api.DELETE('/accounts/{accountId}/projects/{projectId}', { params: { path: { accountId, projectId } }, ...init }));
  }

  startDeploy(accountId: string, projectId: string, files: readonly ManifestEntry[]): Promise<StartedDeployBody> {
    return this.answer((init) =>
      this.api.POST('/accounts/{accountId}/projects/{projectId}/deploys', {
        params: { path: { accountId, projectId } },
        body: { files: [...files] },
        ...init,
      }),
    ) as Promise<StartedDeployBody>;
  }

  /** A `files_missing` refusal is an answer here: it carries fresh URLs for what is missing. */
  async finalizeDeploy(accountId: string, projectId: string, deployId: string): Promise<FinalizeAnswer> {
    type Answer = DeployRecord & { code?: string; uploads?: UploadInstruction[] };
    const answer = (await this.answer(
      (init) =>
        this.api.POST('/accounts/{accountId}/projects/{projectId}/deploys/{deployId}/finalize', {
          params: { path: { accountId, projectId, deployId } },
          ...init,
        }),
      'files_missing',
    )) as Answer;
    return answer.code === 'files_missing' ? { missing: answer.uploads ?? [] } : { deploy: answer };
  }

  async listDeploys(accountId: string, projectId: string): Promise<DeployListing[]> {
    const body = await this.answer((init) =>
      this.api.GET('/accounts/{accountId}/projects/{projectId}/deploys', { params: { path: { accountId, projectId } }, ...init }),
    );
    return this.list(body.deploys as DeployListing[] | undefined, 'deploys');
  }

  rollback(accountId: string, projectId: string, deployId: string): Promise<DeployListing> {
    return this.answer((init) =>
      this.api.POST('/accounts/{accountId}/projects/{projectId}/deploys/{deployId}/rollback', {
        params: { path: { accountId, projectId, deployId } },
        ...init,
      }),
    ) as Promise<DeployListing>;
  }

  addDomain(accountId: string, projectId: string, domain: string): Promise<DomainAdded> {
    return this.answer((init) =>
      this.api.POST('/accounts/{accountId}/projects/{projectId}/domains', { params: { path: { accountId, projectId } }, body: { domain }, ...init }),
    );
  }

  async listDomains(accountId: string, projectId: string): Promise<DomainView[]> {
    const body = await this.answer((init) =>
      this.api.GET('/accounts/{accountId}/projects/{projectId}/domains', { params: { path: { accountId, projectId } }, ...init }),
    );
    return this.list(body.domains, 'domains');
  }

  getDomain(accountId: string, projectId: string, domain: string): Promise<DomainView> {
    return this.answer((init) =>
      this.api.GET('/accounts/{accountId}/projects/{projectId}/domains/{domain}', { params: { path: { accountId, projectId, domain } }, ...init }),
    );
  }

  verifyDomain(accountId: string, projectId: string, domain: string, again = false): Promise<DomainView> {
    const params = { path: { accountId, projectId, domain } };
    return this.answer((init) =>
      again
        ? this.api.POST('/accounts/{accountId}/projects/{projectId}/domains/{domain}/reverify', { params, ...init })
        : this.api.POST('/accounts/{accountId}/projects/{projectId}/domains/{domain}/verify', { params, ...init }),
    );
  }

  removeDomain(accountId: string, projectId: string, domain: string): Promise<DomainRemoved> {
    return this.answer((init) =>
      this.api.DELETE('/accounts/{accountId}/projects/{projectId}/domains/{domain}', { params: { path: { accountId, projectId, domain } }, ...init }),
    );
  }

  setPrimaryDomain(accountId: string, projectId: string, domain: string): Promise<DomainConfig> {
    return this.answer((init) =>
      this.api.PUT('/accounts/{accountId}/projects/{projectId}/domain-config/primary', {
        params: { path: { accountId, projectId } },
        body: { domain },
        ...init,
      }),
    );
  }

  addRedirect(accountId: string, projectId: string, redirect: RedirectInput): Promise<DomainConfig> {
    // The platform judges the status (and says which ones it takes); the CLI passes what was typed.
    const body = redirect as paths['/accounts/{accountId}/projects/{projectId}/domain-config/redirects']['post']['requestBody']['content']['application/json'];
    return this.answer((init) =>
      this.api.POST('/accounts/{accountId}/projects/{projectId}/domain-config/redirects', { params: { path: { accountId, projectId } }, body, ...init }),
    );
  }

  removeRedirect(accountId: string, projectId: string, from: string): Promise<DomainConfig> {
    return this.answer((init) =>
      this.api.DELETE('/accounts/{accountId}/projects/{projectId}/domain-config/redirects/{from}', {
        params: { path: { accountId, projectId, from } },
        ...init,
      }),
    );
  }

  checkDomainDrift(): Promise<DriftCheckStarted> {
    return this.answer((init) => this.api.POST('/maintenance/domain-drift-check', init));
  }

  async listWebhooks(accountId: string): Promise<WebhookEndpointView[]> {
    const body = await this.answer((init) => this.api.GET('/accounts/{accountId}/webhooks', { params: { path: { accountId } }, ...init }));
    return this.list(body.webhooks as WebhookEndpointView[] | undefined, 'webhooks');
  }

  createWebhook(accountId: string, input: { url: string; events?: readonly string[] }) {
    const body = input as paths['/accounts/{accountId}/webhooks']['post']['requestBody']['content']['application/json'];
    return this.answer((init) => this.api.POST('/accounts/{accountId}/webhooks', { params: { path: { accountId } }, body, ...init })) as Promise<{
      webhook: WebhookEndpointView;
      secret: string;
    }>;
  }

  removeWebhook(accountId: string, webhookId: string): Promise<{ id: string; removed: true }> {
    return this.answer((init) =>
      this.api.DELETE('/accounts/{accountId}/webhooks/{webhookId}', { params: { path: { accountId, webhookId } }, ...init }),
    ) as Promise<{ id: string; removed: true }>;
  }

  rotateWebhookSecret(accountId: string, webhookId: string) {
    return this.answer((init) =>
      this.api.POST('/accounts/{accountId}/webhooks/{webhookId}/rotate-secret', { params: { path: { accountId, webhookId } }, ...init }),
    ) as Promise<{ webhook: WebhookEndpointView; secret: string; previousSecretExpiresAt: string }>;
  }

  sendWebhookTest(accountId: string, webhookId: string): Promise<{ eventId: string; type: string }> {
    return this.answer((init) =>
      this.api.POST('/accounts/{accountId}/webhooks/{webhookId}/test', { params: { path: { accountId, webhookId } }, ...init }),
    ) as Promise<{ eventId: string; type: string }>;
  }

  private list<T>(value: T[] | undefined, name: string): T[] {
    if (!Array.isArray(value)) throw new CliError(`unexpected answer from ${this.baseUrl}: no "${name}" list`, { hint: URL_HINT });
    return value;
  }

  /**
   * The answer's body, or a CliError: the platform's problem document, a network failure, or not the control API.
   * `answeredProblem`: a refusal with this code is returned as the answer rather than thrown.
   */
  private async answer<T>(
    send: (init: { signal: AbortSignal }) => Promise<Settled<T>>,
    answeredProblem?: string,
  ): Promise<T> {
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    // The signal ends the request; the race ends the wait even where a fetch does not honour it.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new DOMException('The operation timed out.', 'TimeoutError')), timeoutMs);
    const timedOut = new Promise<never>((_, reject) => {
      timeout.signal.addEventListener('abort', () => reject(timeout.signal.reason as Error), { once: true });
    });
    let settled: Settled<T>;
    try {
      settled = await Promise.race([send({ signal: timeout.signal }), timedOut]);
    } catch (error) {
      if (error instanceof SyntaxError) {
        throw new CliError(`unexpected answer from ${this.baseUrl}: not a JSON document`, { hint: URL_HINT });
      }
      throw networkError(error, this.baseUrl, timeoutMs);
    } finally {
      clearTimeout(timer);
    }
    const { data, error, response } = settled;
    if (!response.ok) {
      const problem = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
      const code = typeof problem.code === 'string' ? problem.code : undefined;
      if (answeredProblem !== undefined && code === answeredProblem) return problem as T;
      const fallback = `HTTP ${response.status} ${response.statusText || STATUS_CODES[response.status] || ''}`.trim();
      const detail = typeof problem.detail === 'string' ? problem.detail : fallback;
      type FieldError = { field: string; message: string };
      const errors = Array.isArray(problem.errors) ? (problem.errors as FieldError[]) : undefined;
      // A 401/403/404/405 without a platform code: the URL is some other server (the local
      // control API has no authentication), e.g. the Messages API's port.
      const foreign = [401, 403, 404, 405].includes(response.status) && !CONTROL_API_CODES.has(code ?? '');
      throw new CliError(detail, {
        status: response.status,
        ...(code ? { code } : {}),
        ...(errors ? { errors } : {}),
        ...(foreign ? { hint: URL_HINT } : {}),
      });
    }
    if (typeof data !== 'object' || data === null) {
      throw new CliError(`unexpected answer from ${this.baseUrl}: not a JSON document`, { status: response.status, hint: URL_HINT });
    }
    return data;
  }
}

type FinalizeAnswer = { missing?: UploadInstruction[]; deploy?: DeployRecord };

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
