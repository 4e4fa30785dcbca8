import { HttpVerbs, NotFoundError, Router } from '@aws-lambda-powertools/event-handler/http';
import type { Middleware, RequestContext } from '@aws-lambda-powertools/event-handler/types';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { RuntimeConfig } from '../../contracts/plans.js';
import type { DomainService } from '../domains/domain-service.js';
import type { AccountService } from '../keys/account-service.js';
import type { DeployService } from '../projects/deploy-service.js';
import type { UpgradeRequests } from '../keys/upgrade-requests.js';
import type { ProjectService } from '../projects/project-service.js';
import { problemResult } from '../shared/http.js';
import { logger } from '../shared/powertools.js';
import { type HttpProblem, problems, refuse } from '../shared/problem.js';
import type { UsageHistory } from '../usage-history/usage-history.js';
import type { WebhookService } from '../webhooks/index.js';
import type { OwnerMessageLog } from './owner-messages.js';
import type { OwnerDirectory } from './owners.js';

/** Operators (CLI, local control port) act on any account; owners (the dashboard) on their own only. */
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
  readonly upgradeRequests: UpgradeRequests;
  /** @default - no webhook or message routes */
  readonly webhooks?: { readonly service: WebhookService; readonly messages: OwnerMessageLog };
}

/** The largest body: a deploy's manifest of 10,000 files (files themselves go straight to the site bucket). */
export const MAX_CONTROL_BODY_BYTES = 6 * 1024 * 1024;

type ControlStore = { principal: Principal; body: Record<string, unknown> };
type ControlEnv = { store: { request: ControlStore } };
export type ControlContext = RequestContext<ControlEnv>;

/** A capability's routes (`routes/<capability>.ts`, listed in `routes/index.ts`). */
export type ControlRoutes = (app: ControlRouter, services: ControlServices) => void;

const VERBS = [HttpVerbs.GET, HttpVerbs.POST, HttpVerbs.PUT, HttpVerbs.PATCH, HttpVerbs.DELETE] as const;

/**
 * The control API on the Powertools router: the Lambda, the local dashboard server and the local
 * control port answer through `answer` and differ only in `principalOf`. Every error is rendered
 * once, by problemResult, as an RFC 9457 problem. Routes carry their access rule (`app.allow.*`).
 */
export class ControlRouter extends Router<ControlEnv> {
  readonly allow: {
    readonly operator: Middleware;
    /** Operators, and the owner of the path's `:accountId` (another account is answered as absent). */
    readonly account: Middleware;
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

  /** Every answer, errors included, is `no-store` and carries its request id. */
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

/** A segment that is not valid percent-encoding is escaped once more: its route then answers its own 404. */
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

export function principal(reqCtx: Pick<ControlContext, 'get'>): Principal {
  const caller = reqCtx.get('principal');
  if (!caller) throw new Error('the control router names the caller before any route');
  return caller;
}

/** The request's JSON object body (`{}` when there is none). */
export function bodyOf(reqCtx: Pick<ControlContext, 'get'>): Record<string, unknown> {
  return reqCtx.get('body') ?? {};
}

/** A path parameter (always present: the route's pattern names it). */
export function param(reqCtx: Pick<ControlContext, 'params'>, name: string): string {
  return reqCtx.params[name] ?? '';
}

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
