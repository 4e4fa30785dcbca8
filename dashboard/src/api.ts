import type {
  Account, AddedDomain, CreatedKey, DeployFile, Domain, DomainConfig, Key, Me, Plan, Problem, Project, RedirectStatus,
  RemovedDomain, Usage, UsageHistory,
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

const seg = encodeURIComponent;

export interface ApiOptions {
  readonly baseUrl: string;
  readonly token: () => string | undefined;
  /** Called on any 401: the session is over. */
  readonly onUnauthorized: () => void;
}

/** The control API as the signed-in owner sees it. */
export class Api {
  constructor(private readonly options: ApiOptions) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    const token = this.options.token();
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${this.options.baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      cache: 'no-store',
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (res.status === 401) {
      this.options.onUnauthorized();
      throw new ApiError(401, 'Your session has expired. Sign in again.', isProblem(parsed) ? parsed : undefined);
    }
    if (!res.ok) {
      const problem = isProblem(parsed) ? parsed : undefined;
      const message = problem?.detail ?? problem?.title ?? `The request failed (HTTP ${res.status}).`;
      throw new ApiError(res.status, message, problem);
    }
    return parsed as T;
  }

  me = () => this.request<Me>('GET', '/me');
  plans = () => this.request<{ plans: Plan[] }>('GET', '/plans').then((r) => r.plans);
  account = (accountId: string) => this.request<Account>('GET', `/accounts/${seg(accountId)}`);

  keys = (accountId: string) => this.request<{ keys: Key[] }>('GET', `/accounts/${seg(accountId)}/keys`).then((r) => r.keys);
  createKey = (accountId: string, name: string) =>
    this.request<CreatedKey>('POST', `/accounts/${seg(accountId)}/keys`, { name });

  revokeKey = (accountId: string, keyId: string) =>
    this.request<Key>('DELETE', `/accounts/${seg(accountId)}/keys/${seg(keyId)}`);

  usage = (accountId: string) => this.request<Usage>('GET', `/accounts/${seg(accountId)}/usage`);
  /** Accepted and refused requests per UTC day (1 to 30 days, today included). */
  usageHistory = (accountId: string, days = 30) =>
    this.request<UsageHistory>('GET', `/accounts/${seg(accountId)}/usage/history?days=${days}`);

  projects = (accountId: string) =>
    this.request<{ projects: Project[] }>('GET', `/accounts/${seg(accountId)}/projects`).then((r) => r.projects);

  project = (accountId: string, projectId: string) =>
    this.request<Project>('GET', `/accounts/${seg(accountId)}/projects/${seg(projectId)}`);

  createProject = (accountId: string, input: { slug: string; name?: string }) =>
    this.request<Project>('POST', `/accounts/${seg(accountId)}/projects`, input);

  /** Uploads a whole site; the answer is the project once the deploy finished (live only if it succeeded). */
  deploy = (accountId: string, projectId: string, files: readonly DeployFile[]) =>
    this.request<Project>('POST', `${this.projectPath(accountId, projectId)}/deploys`, { files });

  private projectPath = (accountId: string, projectId: string) => `/accounts/${seg(accountId)}/projects/${seg(projectId)}`;

  domains = (accountId: string, projectId: string) =>
    this.request<{ domains: Domain[] }>('GET', `${this.projectPath(accountId, projectId)}/domains`).then((r) => r.domains);

  addDomain = (accountId: string, projectId: string, domain: string) =>
    this.request<AddedDomain>('POST', `${this.projectPath(accountId, projectId)}/domains`, { domain });

  domain = (accountId: string, projectId: string, domain: string) =>
    this.request<Domain>('GET', `${this.projectPath(accountId, projectId)}/domains/${seg(domain)}`);

  verifyDomain = (accountId: string, projectId: string, domain: string, again = false) =>
    this.request<Domain>(
      'POST',
      `${this.projectPath(accountId, projectId)}/domains/${seg(domain)}/${again ? 'reverify' : 'verify'}`,
    );

  removeDomain = (accountId: string, projectId: string, domain: string) =>
    this.request<RemovedDomain>('DELETE', `${this.projectPath(accountId, projectId)}/domains/${seg(domain)}`);

  setPrimary = (accountId: string, projectId: string, domain: string) =>
    this.request<DomainConfig>('PUT', `${this.projectPath(accountId, projectId)}/domain-config/primary`, { domain });

  addRedirect = (
    accountId: string,
    projectId: string,
    redirect: { from: string; to: string; status: RedirectStatus },
  ) =>
    this.request<DomainConfig>('POST', `${this.projectPath(accountId, projectId)}/domain-config/redirects`, redirect);

  removeRedirect = (accountId: string, projectId: string, from: string) =>
    this.request<DomainConfig>('DELETE', `${this.projectPath(accountId, projectId)}/domain-config/redirects/${seg(from)}`);
}
