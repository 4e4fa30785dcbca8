import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../contracts/openapi/control-api';
import type {
  Account, AddedDomain, CreatedKey, Deploy, DeployListing, Domain, DomainConfig, Key, ManifestFile, Me, Plan, PlanId,
  Problem, Project, ProjectDeleted, StartedDeploy, UploadInstruction,
  RedirectStatus, RemovedDomain, UpgradeRequest, Usage, UsageHistory,
} from './types';

/** A failed API call: the problem document's `detail` is what the user reads. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly problem: Problem | undefined;

  constructor(status: number, message: string, problem?: Problem) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = problem?.code;
    this.problem = problem;
  }
}

/** The message to show for any error thrown by a call. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    const fields = error.problem?.errors?.map((e) => `${e.field}: ${e.message}`).join('; ');
    const message = fields ? `${error.message} (${fields})` : error.message;
    // A server error's detail is generic: the request ID lets support find what happened.
    const requestId = error.status >= 500 ? error.problem?.requestId : undefined;
    return requestId ? `${message} If it keeps happening, contact support with request ID ${requestId}.` : message;
  }
  if (error instanceof TypeError) return 'The service could not be reached. Check your connection and try again.';
  return error instanceof Error ? error.message : String(error);
}

const isProblem = (value: unknown): value is Problem =>
  typeof value === 'object' && value !== null && typeof (value as { status?: unknown }).status === 'number';

export interface ApiOptions {
  readonly baseUrl: string;
  readonly token: () => string | undefined;
  /** Called on any 401: the session is over. */
  readonly onUnauthorized: () => void;
}

/** What every openapi-fetch call resolves to: the typed answer, or the (problem) error body. */
interface Answer<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

/**
 * The control API as the signed-in owner sees it: one openapi-fetch client typed by the generated
 * `contracts/openapi/control-api.ts` (from openapi/control-api.yaml), so a path, parameter or body
 * the document does not have does not compile. The bearer token, a 401 ending the session and
 * problem+json errors are handled here, once, for every call.
 */
export class Api {
  readonly client: Client<paths>;

  constructor(private readonly options: ApiOptions) {
    this.client = createClient<paths>({ baseUrl: options.baseUrl, cache: 'no-store', headers: { Accept: 'application/json' } });
    this.client.use({
      onRequest: ({ request }) => {
        const token = options.token();
        if (token) request.headers.set('Authorization', `Bearer ${token}`);
        return request;
      },
    });
  }

  /**
   * The answer's data, or an ApiError carrying the problem document (a 401 also ends the session).
   * Public for the calls kept in the pages' own modules (pages/webhooks/webhooks-api.ts).
   */
  async unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
    const { data, error, response } = await call;
    const problem = isProblem(error) ? error : undefined;
    if (response.status === 401) {
      this.options.onUnauthorized();
      throw new ApiError(401, 'Your session has expired. Sign in again.', problem);
    }
    if (!response.ok) {
      const message = problem?.detail ?? problem?.title ?? `The request failed (HTTP ${response.status}).`;
      throw new ApiError(response.status, message, problem);
    }
    return data as T;
  }

  private account_ = (accountId: string) => ({ params: { path: { accountId } } });
  private project_ = (accountId: string, projectId: string) => ({ params: { path: { accountId, projectId } } });
  private domain_ = (accountId: string, projectId: string, domain: string) =>
    ({ params: { path: { accountId, projectId, domain } } });

  me = (): Promise<Me> => this.unwrap(this.client.GET('/me'));
  plans = (): Promise<Plan[]> => this.unwrap(this.client.GET('/plans')).then((r) => r.plans);
  account = (accountId: string): Promise<Account> => this.unwrap(this.client.GET('/accounts/{accountId}', this.account_(accountId)));

  /** Asks the operators to move the account to `plan`; pending until one of them acts. */
  requestUpgrade = (accountId: string, plan: PlanId): Promise<UpgradeRequest> =>
    this.unwrap(this.client.POST('/accounts/{accountId}/upgrade-request', { ...this.account_(accountId), body: { plan } }))
      .then((r) => r.upgradeRequest);

  keys = (accountId: string): Promise<Key[]> =>
    this.unwrap(this.client.GET('/accounts/{accountId}/keys', this.account_(accountId))).then((r) => r.keys);

  createKey = (accountId: string, name: string): Promise<CreatedKey> =>
    this.unwrap(this.client.POST('/accounts/{accountId}/keys', { ...this.account_(accountId), body: { name } }));

  revokeKey = (accountId: string, keyId: string): Promise<Key> =>
    this.unwrap(this.client.DELETE('/accounts/{accountId}/keys/{keyId}', { params: { path: { accountId, keyId } } }));

  usage = (accountId: string): Promise<Usage> => this.unwrap(this.client.GET('/accounts/{accountId}/usage', this.account_(accountId)));
  /** Accepted and refused requests per UTC day (1 to 30 days, today included). */
  usageHistory = (accountId: string, days = 30): Promise<UsageHistory> =>
    this.unwrap(this.client.GET('/accounts/{accountId}/usage/history', { params: { path: { accountId }, query: { days } } }));

  projects = (accountId: string): Promise<Project[]> =>
    this.unwrap(this.client.GET('/accounts/{accountId}/projects', this.account_(accountId))).then((r) => r.projects);

  project = (accountId: string, projectId: string): Promise<Project> =>
    this.unwrap(this.client.GET('/accounts/{accountId}/projects/{projectId}', this.project_(accountId, projectId)));

  createProject = (accountId: string, input: { slug: string; name?: string }): Promise<Project> =>
    this.unwrap(this.client.POST('/accounts/{accountId}/projects', { ...this.account_(accountId), body: input }));

  renameProject = (accountId: string, projectId: string, name: string): Promise<Project> =>
    this.unwrap(this.client.PATCH('/accounts/{accountId}/projects/{projectId}', { ...this.project_(accountId, projectId), body: { name } }));

  deleteProject = (accountId: string, projectId: string): Promise<ProjectDeleted> =>
    this.unwrap(this.client.DELETE('/accounts/{accountId}/projects/{projectId}', this.project_(accountId, projectId)));

  /** Starts a deploy from its manifest: the answer lists the uploads the platform still needs (contracts/deploys.ts). */
  startDeploy = (accountId: string, projectId: string, files: readonly ManifestFile[]): Promise<StartedDeploy> =>
    this.unwrap(this.client.POST('/accounts/{accountId}/projects/{projectId}/deploys', {
      ...this.project_(accountId, projectId),
      body: { files: [...files] },
    }));

  /** Publishes an uploaded deploy; a `files_missing` refusal is an answer: what to upload again. */
  finalizeDeploy = async (
    accountId: string,
    projectId: string,
    deployId: string,
  ): Promise<{ deploy?: Deploy; missing?: UploadInstruction[] }> => {
    try {
      return {
        deploy: await this.unwrap(this.client.POST('/accounts/{accountId}/projects/{projectId}/deploys/{deployId}/finalize', {
          params: { path: { accountId, projectId, deployId } },
        })),
      };
    } catch (error) {
      if (error instanceof ApiError && error.code === 'files_missing') return { missing: error.problem?.uploads ?? [] };
      throw error;
    }
  };

  deploys = (accountId: string, projectId: string): Promise<DeployListing[]> =>
    this.unwrap(this.client.GET('/accounts/{accountId}/projects/{projectId}/deploys', this.project_(accountId, projectId)))
      .then((r) => r.deploys);

  rollback = (accountId: string, projectId: string, deployId: string): Promise<DeployListing> =>
    this.unwrap(this.client.POST('/accounts/{accountId}/projects/{projectId}/deploys/{deployId}/rollback', {
      params: { path: { accountId, projectId, deployId } },
    }));

  domains = (accountId: string, projectId: string): Promise<Domain[]> =>
    this.unwrap(this.client.GET('/accounts/{accountId}/projects/{projectId}/domains', this.project_(accountId, projectId)))
      .then((r) => r.domains);

  addDomain = (accountId: string, projectId: string, domain: string): Promise<AddedDomain> =>
    this.unwrap(this.client.POST('/accounts/{accountId}/projects/{projectId}/domains', {
      ...this.project_(accountId, projectId),
      body: { domain },
    }));

  domain = (accountId: string, projectId: string, domain: string): Promise<Domain> =>
    this.unwrap(this.client.GET('/accounts/{accountId}/projects/{projectId}/domains/{domain}', this.domain_(accountId, projectId, domain)));

  verifyDomain = (accountId: string, projectId: string, domain: string, again = false): Promise<Domain> =>
    this.unwrap(again
      ? this.client.POST('/accounts/{accountId}/projects/{projectId}/domains/{domain}/reverify', this.domain_(accountId, projectId, domain))
      : this.client.POST('/accounts/{accountId}/projects/{projectId}/domains/{domain}/verify', this.domain_(accountId, projectId, domain)));

  removeDomain = (accountId: string, projectId: string, domain: string): Promise<RemovedDomain> =>
    this.unwrap(this.client.DELETE('/accounts/{accountId}/projects/{projectId}/domains/{domain}', this.domain_(accountId, projectId, domain)));

  setPrimary = (accountId: string, projectId: string, domain: string): Promise<DomainConfig> =>
    this.unwrap(this.client.PUT('/accounts/{accountId}/projects/{projectId}/domain-config/primary', {
      ...this.project_(accountId, projectId),
      body: { domain },
    }));

  addRedirect = (
    accountId: string,
    projectId: string,
    redirect: { from: string; to: string; status: RedirectStatus },
  ): Promise<DomainConfig> =>
    this.unwrap(this.client.POST('/accounts/{accountId}/projects/{projectId}/domain-config/redirects', {
      ...this.project_(accountId, projectId),
      body: redirect,
    }));

  removeRedirect = (accountId: string, projectId: string, from: string): Promise<DomainConfig> =>
    this.unwrap(this.client.DELETE('/accounts/{accountId}/projects/{projectId}/domain-config/redirects/{from}', {
      params: { path: { accountId, projectId, from } },
    }));
}
