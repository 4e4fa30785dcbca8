import { HttpVerbs, NotFoundError, Router } from '@aws-lambda-powertools/event-handler/http';
import type { Middleware, RequestContext } from '@aws-lambda-powertools/event-handler/types';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { RuntimeConfig } from '../../contracts/plans.js';
import type { DomainService } from '../domains/domain-service.js';
import type { AccountService } from '../keys/account-service.js';
import type { DeployService } from '../projects/deploy-service.js';
import type { ProjectService } from '../projects/project-service.js';
import { problemResult } from '../shared/http.js';
import { logger } from '../shared/powertools.js';
import { type HttpProblem, problems, refuse } from '../shared/problem.js';
import type { UsageHistory } from '../usage-history/usage-history.js';
import type { WebhookService } from '../webhooks/index.js';
import type { OwnerMessageLog } from './owner-messages.js';
import type { OwnerDirectory } from './owners.js';

/**
 * Who calls the control API. Operators (the CLI, the local control port) act on any account;
 * owners (the dashboard, signed in with Cognito or the local development sign-in) act on their
 * own account only, and never on plans or bans.
 */
export type OperatorPrincipal = { readonly kind: 'operator' };
export type OwnerPrincipal = { readonly kind: 'owner'; readonly ownerId: string; readonly email?: string };
export type Principal = OperatorPrincipal | OwnerPrincipal;

export interface ControlServices {
  readonly accountService: AccountService;
  readonly projects: ProjectService;
  readonly deploys: DeployService;
  readonly domains: DomainService;
  readonly owners: OwnerDirectory;
  readonly config: RuntimeConfig;
  readonly usageHistory: UsageHistory;
  /** Owners' webhooks and the message pages (routes/webhooks.ts). @default - no such routes */
  readonly webhooks?: { readonly service: WebhookService; readonly messages: OwnerMessageLog };
}

/** The largest body: a deploy's manifest of 10,000 files (files themselves go straight to the site bucket). */
export const MAX_CONTROL_BODY_BYTES = 6 * 1024 * 1024;

/** What the router's middleware stores for the route handlers of one request. */
type ControlStore = { principal: Principal; body: Record<string, unknown> };
type ControlEnv = { store: { request: ControlStore } };
export type ControlContext = RequestContext<ControlEnv>;

/** A capability's routes: `lambda/control/routes/<capability>.ts`, listed in `routes/index.ts`. */
export type ControlRoutes = (app: ControlRouter, services: ControlServices) => void;

const VERBS = [HttpVerbs.GET, HttpVerbs.POST, HttpVerbs.PUT, HttpVerbs.PATCH, HttpVerbs.DELETE] as const;

/**
 * The control API (accounts, plans, keys, bans, usage, projects, deploys, domains) on the
 * Powertools event-handler router: the Lambda behind API Gateway's Cognito authorizer, the local
 * dashboard server and the operator's local control port all answer through `answer`, which differ
 * only in how they name the caller (`principalOf`). Every error is rendered once, by problemResult
 * (lambda/shared/http.ts), as an RFC 9457 problem document (openapi/control-api.yaml).
 *
 * Routes carry their access rule as route middleware (`app.allow.operator`, `.account`, `.owner`;
 * none for routes every principal may call).
 */
export class ControlRouter extends Router<ControlEnv> {
  readonly allow: {
    /** Operators only: plans, bans and new accounts are the platform's decisions. */
    readonly operator: Middleware;
    /** Operators, and the owner of the path's `:accountId` (another account is answered as absent: no probing). */
    readonly account: Middleware;
    /** Signed-in owners only (`/me`). */
    readonly owner: Middleware;
  };

  constructor(
    services: ControlServices,
    routes: readonly ControlRoutes[],
    principalOf: (event: APIGatewayProxyEvent) => Principal | undefined,
  ) {
    super({ logger });
    this.allow = {
      operator: async ({ reqCtx, next }) => {
        if (principal(reqCtx).kind !== 'operator') {
          throw refuse('forbidden', 'Plans, bans and new accounts are managed by the platform team. Contact support to change them.', 403);
        }
        await next();
      },
      account: async ({ reqCtx, next }) => {
        const caller = principal(reqCtx);
        if (caller.kind === 'owner') {
          const own = await services.owners.ensureAccount(caller);
          const accountId = reqCtx.params.accountId ?? '';
          if (accountId !== own) throw refuse('account_not_found', `No account ${accountId}.`, 404);
        }
        await next();
      },
      owner: async ({ reqCtx, next }) => {
        if (principal(reqCtx).kind !== 'owner') throw problems.notFound('This resource belongs to signed-in owners.');
        await next();
      },
    };
    // Who calls, then the body: before any route's access rule, so every route sees both.
    this.use(async ({ reqCtx, next }) => {
      const caller = reqCtx.responseType === 'ApiGatewayV1' ? principalOf(reqCtx.event) : undefined;
      // Behind the authorizer this cannot happen; answered rather than trusted if it ever does.
      if (!caller) throw refuse('unauthorized', 'Sign in to use the dashboard API.', 401);
      reqCtx.set('principal', caller);
      reqCtx.set('body', await parseBody(reqCtx.req));
      await next();
    });
    this.errorHandler(Error, async (error, reqCtx) => {
      const requestId = reqCtx.responseType === 'ApiGatewayV1' ? reqCtx.event.requestContext.requestId : '';
      return problemResult(error instanceof NotFoundError ? this.unrouted(reqCtx.req) : error, undefined, requestId);
    });
    for (const register of routes) register(this, services);
  }

  /** Resolves one API Gateway (REST) event; every answer, errors included, is `no-store` and carries its request id. */
  async answer(event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> {
    const routed = { ...event, path: literalInvalidEscapes(event.path) };
    const { multiValueHeaders, ...result } = await this.resolve(routed, context);
    // The router splits list headers (Allow, Vary) into multiValueHeaders; one shape serves both transports.
    const lists = Object.entries(multiValueHeaders ?? {}).map(([name, values]) => [name, values.join(', ')]);
    return {
      ...result,
      headers: {
        ...result.headers,
        ...Object.fromEntries(lists),
        'cache-control': 'no-store',
        'x-request-id': event.requestContext.requestId,
      },
    };
  }

  /** No route for this method and path: 405 naming the methods the path has, or 404. */
  private unrouted(req: Request): HttpProblem {
    const path = new URL(req.url).pathname.replace(/(.)\/+$/, '$1');
    const allow = VERBS.filter((verb) => {
      try {
        return this.routeRegistry.resolve(verb, path as `/${string}`) !== null;
      } catch {
        return false; // an empty path parameter: no route of this method takes it
      }
    });
    return allow.length > 0 ? problems.methodNotAllowed(allow) : problems.notFound(`There is no resource at ${path}.`);
  }
}

/**
 * A path segment that is not valid percent-encoding is taken as is (escaped once more, so the
 * router's decoding gives it back): it names nothing, so its route answers its own 404 (e.g.
 * account_not_found) rather than failing.
 */
function literalInvalidEscapes(path: string): string {
  return path
    .split('/')
    .map((segment) => {
      try {
        decodeURIComponent(segment);
        return segment;
      } catch {
        return encodeURIComponent(segment);
      }
    })
    .join('/');
}

/** The caller the router's middleware named. */
export function principal(reqCtx: Pick<ControlContext, 'get'>): Principal {
  const caller = reqCtx.get('principal');
  if (!caller) throw new Error('the control router names the caller before any route');
  return caller;
}

/** The request's JSON object body (`{}` when there is none). */
export function bodyOf(reqCtx: Pick<ControlContext, 'get'>): Record<string, unknown> {
  return reqCtx.get('body') ?? {};
}

/** A path parameter of the route (always present: the route's pattern names it). */
export function param(reqCtx: Pick<ControlContext, 'params'>, name: string): string {
  return reqCtx.params[name] ?? '';
}

/** A JSON answer with its status. */
export function reply(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

async function parseBody(req: Request): Promise<Record<string, unknown>> {
  const raw = req.body === null ? '' : await req.text();
  if (raw.length === 0) return {};
  if (Buffer.byteLength(raw) > MAX_CONTROL_BODY_BYTES) throw refuse('payload_too_large', 'The body is too large.', 413);
  if (!/^application\/json\b/i.test(req.headers.get('content-type') ?? '')) {
    throw refuse('unsupported_media_type', 'Content-Type must be application/json.', 400);
  }
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Record<string, unknown>;
  } catch {
    throw refuse('invalid_json', 'The body must be a JSON object.', 400);
  }
}
