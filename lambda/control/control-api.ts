import { randomUUID } from 'node:crypto';
import { PLAN_IDS, type RuntimeConfig } from '../../contracts/plans.js';
import { PROBLEM_TYPE_BASE } from '../../contracts/gateway-responses.js';
import { DomainError, type DomainService } from '../domains/domain-service.js';
import { type AccountService, AccountServiceError } from '../keys/account-service.js';
import { type DeployFile, ProjectError, type ProjectService } from '../projects/project-service.js';
import { decodePathSegment } from '../shared/http.js';
import { parseHistoryDays, type UsageHistory } from '../usage-history/usage-history.js';
import { WebhookError, type WebhookService } from '../webhooks/index.js';
import type { OwnerDirectory } from './owners.js';
import { type OwnerMessageLog, webhookRoutes } from './webhook-routes.js';

/**
 * Who calls the control API. Operators (the CLI, the local control port) act on any
 * account; owners (the dashboard, signed in with Cognito or the local development sign-in) act
 * on their own account only, and never on plans or bans.
 */
export type OperatorPrincipal = { readonly kind: 'operator' };
export type OwnerPrincipal = { readonly kind: 'owner'; readonly ownerId: string; readonly email?: string };
export type Principal = OperatorPrincipal | OwnerPrincipal;

export interface ControlRequest {
  readonly method: string;
  /** The path below the API's base, e.g. `/accounts/acct_1/keys`. */
  readonly path: string;
  readonly contentType?: string;
  /** The raw body, or undefined when there is none. */
  readonly body?: string;
  /** Query string parameters (the last value of a repeated one). */
  readonly query?: Readonly<Record<string, string>>;
  readonly principal: Principal;
  readonly requestId?: string;
}

export interface ControlResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface ControlServices {
  readonly accountService: AccountService;
  readonly projects: ProjectService;
  readonly domains: DomainService;
  readonly owners: OwnerDirectory;
  readonly config: RuntimeConfig;
  readonly usageHistory: UsageHistory;
  /** Owners' webhooks and the message pages (lambda/control/webhook-routes.ts). @default - no such routes */
  readonly webhooks?: { readonly service: WebhookService; readonly messages: OwnerMessageLog };
}

/**
 * Who may call a route:
 * - `operator`: operators only (plans, bans, new accounts are the platform's decisions);
 * - `account`: operators, and the owner of the path's `{accountId}`;
 * - `owner`: signed-in owners only (`/me`);
 * - `anyone`: every principal (`/plans`).
 */
type Access = 'operator' | 'account' | 'owner' | 'anyone';

interface RouteContext {
  readonly params: Record<string, string>;
  readonly body: Record<string, unknown>;
  readonly query: Readonly<Record<string, string>>;
  readonly principal: Principal;
}

type RouteHandler = (context: RouteContext) => Promise<{ status: number; body: unknown }>;

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly params: readonly string[];
  readonly access: Access;
  readonly handler: RouteHandler;
}

const route = (method: string, path: string, access: Access, handler: RouteHandler): Route => {
  const params: string[] = [];
  const pattern = new RegExp(
    `^${path.replace(/\{(\w+)\}/g, (_, name: string) => {
      params.push(name);
      return '([^/]+)';
    })}/?$`,
  );
  return { method, pattern, params, access, handler };
};

/** A refusal decided by the API itself (routing, parsing, access), as a problem document. */
class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** Deploys carry their files (base64) in the body. API Gateway's own limit (10 MB) is lower. */
export const MAX_CONTROL_BODY_BYTES = 20 * 1024 * 1024;

const STATUS_TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
};

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `files: [{ path, content }]` with base64 content, as the CLI sends a folder. */
function deployFiles(value: unknown): DeployFile[] {
  if (!Array.isArray(value)) throw new ProjectError('invalid_request', 'files must be a list of {path, content (base64)}.', 400);
  return value.map((file: unknown) => {
    const { path, content } = (file ?? {}) as { path?: unknown; content?: unknown };
    if (typeof path !== 'string' || typeof content !== 'string' || !BASE64.test(content)) {
      throw new ProjectError('invalid_request', 'Each file needs a path and base64 content.', 400);
    }
    return { path, body: Buffer.from(content, 'base64') };
  });
}

/**
 * The control API (accounts, plans, keys, bans, usage, projects, deploys, domains),
 * independent of its transport: the operator's local control port, the local dashboard server
 * and the Lambda behind API Gateway's Cognito authorizer all answer through `handle`. Errors are
 * RFC 9457 problem documents (openapi/control-api.yaml).
 */
export class ControlApi {
  private readonly routes: readonly Route[];

  constructor(private readonly services: ControlServices) {
    this.routes = controlRoutes(services);
  }

  async handle(request: ControlRequest): Promise<ControlResponse> {
    const requestId = request.requestId ?? randomUUID();
    try {
      const { status, body } = await this.dispatch(request);
      return {
        status,
        headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'X-Request-Id': requestId },
        body: JSON.stringify(body),
      };
    } catch (error) {
      if (error instanceof ApiProblem) {
        return problemResponse(requestId, error.status, error.code, error.message, error.headers);
      }
      if (error instanceof AccountServiceError) {
        return problemResponse(requestId, error.status, error.code, error.message, {}, error.errors);
      }
      if (error instanceof ProjectError || error instanceof DomainError || error instanceof WebhookError) {
        return problemResponse(requestId, error.status, error.code, error.message);
      }
      throw error;
    }
  }

  private async dispatch(request: ControlRequest): Promise<{ status: number; body: unknown }> {
    const path = request.path.length > 1 ? request.path.replace(/\/+$/, '') : request.path;
    const method = request.method.toUpperCase();
    const matching = this.routes.filter((r) => r.pattern.test(path));
    if (matching.length === 0) throw new ApiProblem(404, 'not_found', `There is no resource at ${path}.`);
    const match = matching.find((r) => r.method === method);
    if (!match) {
      const allow = matching.map((r) => r.method).join(', ');
      throw new ApiProblem(405, 'method_not_allowed', `Allowed methods: ${allow}.`, { Allow: allow });
    }

    const values = match.pattern.exec(path)?.slice(1) ?? [];
    // A parameter that is not valid percent-encoding is taken as is: it names nothing, so the
    // route answers its own 404 (e.g. account_not_found) rather than failing.
    const params = Object.fromEntries(match.params.map((name, i) => [name, decodePathSegment(values[i] ?? '')]));
    await this.authorize(match.access, params, request.principal);
    const body = parseBody(request);
    return match.handler({ params, body, query: request.query ?? {}, principal: request.principal });
  }

  /** Owners reach their own account only; another account is answered as absent (no probing). */
  private async authorize(access: Access, params: Record<string, string>, principal: Principal): Promise<void> {
    if (principal.kind === 'operator') {
      if (access === 'owner') throw new ApiProblem(404, 'not_found', 'This resource belongs to signed-in owners.');
      return;
    }
    if (access === 'operator') {
      throw new ApiProblem(403, 'forbidden', 'Plans, bans and new accounts are managed by the platform team. Contact support to change them.');
    }
    if (access === 'account') {
      const own = await this.services.owners.ensureAccount(principal);
      if (params.accountId !== own) throw new ApiProblem(404, 'account_not_found', `No account ${params.accountId ?? ''}.`);
    }
  }
}

function parseBody(request: ControlRequest): Record<string, unknown> {
  const raw = request.body ?? '';
  if (raw.length === 0) return {};
  if (Buffer.byteLength(raw) > MAX_CONTROL_BODY_BYTES) throw new ApiProblem(413, 'payload_too_large', 'The body is too large.');
  if (!/^application\/json\b/i.test(request.contentType ?? '')) {
    throw new ApiProblem(400, 'unsupported_media_type', 'Content-Type must be application/json.');
  }
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Record<string, unknown>;
  } catch {
    throw new ApiProblem(400, 'invalid_json', 'The body must be a JSON object.');
  }
}

/** A problem document answer of the control API (title from the status). */
export function problemResponse(
  requestId: string,
  status: number,
  code: string,
  detail: string,
  headers: Record<string, string> = {},
  errors?: ReadonlyArray<{ field: string; message: string }>,
): ControlResponse {
  const title = STATUS_TITLES[status] ?? 'Error';
  return {
    status,
    headers: { ...headers, 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store', 'X-Request-Id': requestId },
    body: JSON.stringify({ type: `${PROBLEM_TYPE_BASE}${code}`, title, status, detail, code, requestId, ...(errors ? { errors } : {}) }),
  };
}

/** Plans as customers see them: limits, and which features need which plan. */
export function planCatalogue(config: RuntimeConfig) {
  return PLAN_IDS.map((id) => {
    const plan = config.plans[id];
    return {
      id,
      displayName: plan.displayName,
      limits: plan.limits,
      customLimits: plan.customLimits,
      customDomains: plan.customDomains,
    };
  });
}

function controlRoutes(services: ControlServices): Route[] {
  const { accountService, projects, domains, owners, config, usageHistory, webhooks } = services;
  const base = '/accounts/{accountId}/projects/{projectId}';
  const account = (p: Record<string, string>) => p.accountId as string;
  const ids = (p: Record<string, string>) => [p.accountId as string, p.projectId as string] as const;
  const domainOf = (p: Record<string, string>) => p.domain as string;
  const webhookRoutesOf = webhooks
    ? webhookRoutes(webhooks.service, webhooks.messages).map((r) => route(r.method, r.path, 'account', r.handler))
    : [];
  return [
    ...webhookRoutesOf,
    route('GET', '/me', 'owner', async ({ principal }) => {
      if (principal.kind !== 'owner') throw new ApiProblem(404, 'not_found', 'This resource belongs to signed-in owners.');
      const accountId = await owners.ensureAccount(principal);
      return {
        status: 200,
        body: {
          ownerId: principal.ownerId,
          ...(principal.email ? { email: principal.email } : {}),
          account: await accountService.getAccount(accountId),
        },
      };
    }),
    route('GET', '/plans', 'anyone', async () => ({ status: 200, body: { plans: planCatalogue(config) } })),

    route('POST', '/accounts', 'operator', async ({ body }) => ({
      status: 201,
      body: await accountService.createAccount({ name: body.name, plan: body.plan, limits: body.limits }),
    })),
    route('GET', '/accounts/{accountId}', 'account', async ({ params }) => ({
      status: 200,
      body: await accountService.getAccount(account(params)),
    })),
    route('PUT', '/accounts/{accountId}/plan', 'operator', async ({ params, body }) => ({
      status: 200,
      body: await accountService.setPlan(account(params), { plan: body.plan, limits: body.limits }),
    })),
    route('POST', '/accounts/{accountId}/keys', 'account', async ({ params, body }) => ({
      status: 201,
      body: await accountService.createKey(account(params), body.name),
    })),
    route('GET', '/accounts/{accountId}/keys', 'account', async ({ params }) => ({
      status: 200,
      body: { keys: await accountService.listKeys(account(params)) },
    })),
    route('DELETE', '/accounts/{accountId}/keys/{keyId}', 'account', async ({ params }) => ({
      status: 200,
      body: await accountService.revokeKey(account(params), params.keyId as string),
    })),
    route('DELETE', '/accounts/{accountId}/keys/{keyId}/ban', 'operator', async ({ params }) => ({
      status: 200,
      body: await accountService.liftBan(account(params), params.keyId as string),
    })),
    route('GET', '/accounts/{accountId}/usage', 'account', async ({ params }) => ({
      status: 200,
      body: await accountService.usage(account(params)),
    })),
    route('GET', '/accounts/{accountId}/usage/history', 'account', async ({ params, query }) => ({
      status: 200,
      body: await usageHistory.history(account(params), parseHistoryDays(query.days)),
    })),
    // Migration of accounts from before per-account limits and internal keys (accounts migrate).
    route('POST', '/maintenance/migrate-accounts', 'operator', async ({ body }) => {
      const { accountId } = body;
      if (accountId !== undefined && typeof accountId !== 'string') {
        throw new ApiProblem(400, 'invalid_request', 'accountId must be a string when given.');
      }
      return { status: 200, body: await accountService.migrate(accountId) };
    }),

    // The drift check of every live domain runs on a schedule; operators can start one now.
    route('POST', '/maintenance/domain-drift-check', 'operator', async () => ({ status: 202, body: await domains.checkDrift() })),

    route('POST', '/accounts/{accountId}/projects', 'account', async ({ params, body }) => ({
      status: 201,
      body: await projects.createProject(account(params), { slug: body.slug, name: body.name }),
    })),
    route('GET', '/accounts/{accountId}/projects', 'account', async ({ params }) => ({
      status: 200,
      body: { projects: await projects.listProjects(account(params)) },
    })),
    route('GET', base, 'account', async ({ params }) => ({ status: 200, body: await projects.getProject(...ids(params)) })),
    route('POST', `${base}/deploys`, 'account', async ({ params, body }) => ({
      status: 201,
      body: await projects.deploy(...ids(params), deployFiles(body.files)),
    })),
    route('GET', `${base}/domains`, 'account', async ({ params }) => ({
      status: 200,
      body: { domains: await domains.list(...ids(params)) },
    })),
    route('POST', `${base}/domains`, 'account', async ({ params, body }) => ({
      status: 201,
      body: await domains.add(...ids(params), body.domain),
    })),
    route('GET', `${base}/domains/{domain}`, 'account', async ({ params }) => ({
      status: 200,
      body: await domains.get(...ids(params), domainOf(params)),
    })),
    route('POST', `${base}/domains/{domain}/verify`, 'account', async ({ params }) => ({
      status: 202,
      body: await domains.verify(...ids(params), domainOf(params)),
    })),
    route('POST', `${base}/domains/{domain}/reverify`, 'account', async ({ params }) => ({
      status: 202,
      body: await domains.verify(...ids(params), domainOf(params)),
    })),
    route('DELETE', `${base}/domains/{domain}`, 'account', async ({ params }) => ({
      status: 200,
      body: await domains.remove(...ids(params), domainOf(params)),
    })),
    route('PUT', `${base}/domain-config/primary`, 'account', async ({ params, body }) => ({
      status: 200,
      body: await domains.setPrimary(...ids(params), typeof body.domain === 'string' ? body.domain : ''),
    })),
    route('POST', `${base}/domain-config/redirects`, 'account', async ({ params, body }) => ({
      status: 200,
      body: await domains.addRedirect(...ids(params), { from: body.from, to: body.to, status: body.status }),
    })),
    route('DELETE', `${base}/domain-config/redirects/{from}`, 'account', async ({ params }) => ({
      status: 200,
      body: await domains.removeRedirect(...ids(params), params.from as string),
    })),
  ];
}
