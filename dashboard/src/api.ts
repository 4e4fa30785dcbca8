import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../contracts/openapi/control-api';
import type { Plan, RedirectStatus, Schemas } from './types';

type Problem = Schemas['Problem'];

/** The Messages API's `Message` and its deliveries: the control API's document names only some of its fields. */
type AccountMessage = Schemas['AccountMessage'] & {
  readonly processedAt?: string;
  readonly failedAt?: string;
  readonly attempts?: number;
  readonly result?: unknown;
  readonly lastError?: string;
};

/** A failed API call: the problem document's `detail` is what the user reads. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string, readonly problem?: Problem) {
    super(message);
    this.name = 'ApiError';
  }
}

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

const at = <P extends Record<string, string>>(path: P) => ({ params: { path } });

/** The control API: one openapi-fetch client typed by contracts/openapi/control-api.ts; a 401 ends the session. */
export class Api {
  readonly client: Client<paths>;

  constructor(private readonly options: {
    readonly baseUrl: string;
    readonly token: () => string | undefined;
    /** Called on any 401: the session is over. */
    readonly onUnauthorized: () => void;
  }) {
    this.client = createClient<paths>({ baseUrl: options.baseUrl, cache: 'no-store', headers: { Accept: 'application/json' } });
    this.client.use({
      onRequest: ({ request }) => {
        const token = options.token();
        if (token) request.headers.set('Authorization', `Bearer ${token}`);
        return request;
      },
    });
  }

  /** The answer's data, or an ApiError carrying the problem document (a 401 also ends the session). */
  async unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
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

  me = () => this.unwrap(this.client.GET('/me'));
  plans = () => this.unwrap(this.client.GET('/plans')).then((r) => r.plans);
  account = (accountId: string) => this.unwrap(this.client.GET('/accounts/{accountId}', at({ accountId })));

  /** Asks the operators to move the account to `plan`; pending until one of them acts. */
  requestUpgrade = (accountId: string, plan: Plan['id']) =>
    this.unwrap(this.client.POST('/accounts/{accountId}/upgrade-request', { ...at({ accountId }), body: { plan } }))
      .then((r) => r.upgradeRequest);

  keys = (accountId: string) => this.unwrap(this.client.GET('/accounts/{accountId}/keys', at({ accountId }))).then((r) => r.keys);

  createKey = (accountId: string, name: string) =>
    this.unwrap(this.client.POST('/accounts/{accountId}/keys', { ...at({ accountId }), body: { name } }));

  revokeKey = (accountId: string, keyId: string) =>
    this.unwrap(this.client.DELETE('/accounts/{accountId}/keys/{keyId}', at({ accountId, keyId })));

  usage = (accountId: string) => this.unwrap(this.client.GET('/accounts/{accountId}/usage', at({ accountId })));
  /** Accepted and refused requests per UTC day (1 to 30 days, today included). */
  usageHistory = (accountId: string, days = 30) =>
    this.unwrap(this.client.GET('/accounts/{accountId}/usage/history', { params: { path: { accountId }, query: { days } } }));

  projects = (accountId: string) =>
    this.unwrap(this.client.GET('/accounts/{accountId}/projects', at({ accountId }))).then((r) => r.projects);

  project = (accountId: string, projectId: string) =>
    this.unwrap(this.client.GET('/accounts/{accountId}/projects/{projectId}', at({ accountId, projectId })));

  createProject = (accountId: string, body: { slug: string; name?: string }) =>
    this.unwrap(this.client.POST('/accounts/{accountId}/projects', { ...at({ accountId }), body }));

  renameProject = (accountId: string, projectId: string, name: string) =>
    this.unwrap(this.client.PATCH('/accounts/{accountId}/projects/{projectId}', { ...at({ accountId, projectId }), body: { name } }));

  deleteProject = (accountId: string, projectId: string) =>
    this.unwrap(this.client.DELETE('/accounts/{accountId}/projects/{projectId}', at({ accountId, projectId })));

  /** Starts a deploy from its manifest: the answer lists the uploads the platform still needs (contracts/deploys.ts). */
  startDeploy = (accountId: string, projectId: string, files: readonly Schemas['ManifestFile'][]) =>
    this.unwrap(this.client.POST('/accounts/{accountId}/projects/{projectId}/deploys', {
      ...at({ accountId, projectId }),
      body: { files: [...files] },
    }));

  /** Publishes an uploaded deploy; a `files_missing` refusal is an answer: what to upload again. */
  finalizeDeploy = (accountId: string, projectId: string, deployId: string) =>
    this.unwrap(this.client.POST(
      '/accounts/{accountId}/projects/{projectId}/deploys/{deployId}/finalize',
      at({ accountId, projectId, deployId }),
    )).then((deploy) => ({ deploy }), (error: unknown) => {
      if (error instanceof ApiError && error.problem?.code === 'files_missing') return { missing: error.problem?.uploads ?? [] };
      throw error;
    });

  deploys = (accountId: string, projectId: string) =>
    this.unwrap(this.client.GET('/accounts/{accountId}/projects/{projectId}/deploys', at({ accountId, projectId }))).then((r) => r.deploys);

  rollback = (accountId: string, projectId: string, deployId: string) =>
    this.unwrap(this.client.POST(
      '/accounts/{accountId}/projects/{projectId}/deploys/{deployId}/rollback',
      at({ accountId, projectId, deployId }),
    ));

  domains = (accountId: string, projectId: string) =>
    this.unwrap(this.client.GET('/accounts/{accountId}/projects/{projectId}/domains', at({ accountId, projectId }))).then((r) => r.domains);

  addDomain = (accountId: string, projectId: string, domain: string) =>
    this.unwrap(this.client.POST('/accounts/{accountId}/projects/{projectId}/domains', {
      ...at({ accountId, projectId }),
      body: { domain },
    }));

  domain = (accountId: string, projectId: string, domain: string) =>
    this.unwrap(this.client.GET('/accounts/{accountId}/projects/{projectId}/domains/{domain}', at({ accountId, projectId, domain })));

  verifyDomain = (accountId: string, projectId: string, domain: string, again = false) =>
    this.unwrap(again
      ? this.client.POST('/accounts/{accountId}/projects/{projectId}/domains/{domain}/reverify', at({ accountId, projectId, domain }))
      : this.client.POST('/accounts/{accountId}/projects/{projectId}/domains/{domain}/verify', at({ accountId, projectId, domain })));

  removeDomain = (accountId: string, projectId: string, domain: string) =>
    this.unwrap(this.client.DELETE('/accounts/{accountId}/projects/{projectId}/domains/{domain}', at({ accountId, projectId, domain })));

  setPrimary = (accountId: string, projectId: string, domain: string) =>
    this.unwrap(this.client.PUT('/accounts/{accountId}/projects/{projectId}/domain-config/primary', {
      ...at({ accountId, projectId }),
      body: { domain },
    }));

  addRedirect = (accountId: string, projectId: string, body: { from: string; to: string; status: RedirectStatus }) =>
    this.unwrap(this.client.POST('/accounts/{accountId}/projects/{projectId}/domain-config/redirects', {
      ...at({ accountId, projectId }),
      body,
    }));

  removeRedirect = (accountId: string, projectId: string, from: string) =>
    this.unwrap(this.client.DELETE(
      '/accounts/{accountId}/projects/{projectId}/domain-config/redirects/{from}',
      at({ accountId, projectId, from }),
    ));

  webhooks = (accountId: string) =>
    this.unwrap(this.client.GET('/accounts/{accountId}/webhooks', at({ accountId }))).then((r) => r.webhooks);

  createWebhook = (accountId: string, body: { url: string; events: Schemas['WebhookEventType'][] }) =>
    this.unwrap(this.client.POST('/accounts/{accountId}/webhooks', { ...at({ accountId }), body }));

  removeWebhook = (accountId: string, webhookId: string) =>
    this.unwrap(this.client.DELETE('/accounts/{accountId}/webhooks/{webhookId}', at({ accountId, webhookId })));

  rotateWebhookSecret = (accountId: string, webhookId: string) =>
    this.unwrap(this.client.POST('/accounts/{accountId}/webhooks/{webhookId}/rotate-secret', at({ accountId, webhookId })));

  testWebhook = (accountId: string, webhookId: string) =>
    this.unwrap(this.client.POST('/accounts/{accountId}/webhooks/{webhookId}/test', at({ accountId, webhookId })));

  /** The message log, newest first (the Messages API's `GET /messages` for the signed-in owner). */
  messages = (accountId: string, query: { status?: Schemas['AccountMessage']['status']; cursor?: string }) =>
    this.unwrap(this.client.GET('/accounts/{accountId}/messages', {
      params: { path: { accountId }, query: { limit: 50, ...query } },
    }));

  message = (accountId: string, messageId: string): Promise<AccountMessage> =>
    this.unwrap(this.client.GET('/accounts/{accountId}/messages/{messageId}', at({ accountId, messageId })));

  resendDelivery = (accountId: string, messageId: string, deliveryId: string) =>
    this.unwrap(this.client.POST(
      '/accounts/{accountId}/messages/{messageId}/deliveries/{deliveryId}/resend',
      at({ accountId, messageId, deliveryId }),
    ));
}
