import type { Caller } from '../keys/index.js';
import type { ApiResult, ResponseHeaders } from '../shared/http.js';
import { problems } from '../shared/problem.js';
import { type AccessDeps, enforce, keySubject, requireKey } from './access.js';
import type { MessageStore } from './ports.js';

export interface ReadMessageDeps extends AccessDeps {
  readonly messages: MessageStore;
}

export interface ApiRequestContext {
  readonly caller: Caller;
  readonly sourceIp: string;
  /** Attributes for the request's log lines (request id, key id). */
  readonly log?: Readonly<Record<string, unknown>>;
}

/**
 * A read: it does not consume the sending budget, but a banned key is refused. The limiter's check
 * and the read run side by side (one round trip); the limiter's answer comes first (429 before 404 or 400).
 */
export async function keyedRead(
  request: ApiRequestContext,
  deps: ReadMessageDeps,
  headers: ResponseHeaders,
  read: (accountId: string) => Promise<unknown>,
): Promise<ApiResult> {
  const caller = await requireKey(request.caller, request.sourceIp, deps, headers);
  const [decision, found] = await Promise.allSettled([
    deps.limiter.peek(keySubject(caller), 'read'),
    read(caller.accountId),
  ]);
  if (decision.status === 'rejected') throw decision.reason;
  enforce(decision.value, headers);
  if (found.status === 'rejected') throw found.reason;
  return { statusCode: 200, body: found.value };
}

/** The routes of the API and their methods, for 404 vs 405 on anything that is not routed. */
const ROUTES: ReadonlyArray<{ pattern: RegExp; allow: readonly string[] }> = [
  { pattern: /^\/messages\/?$/, allow: ['GET', 'POST'] },
  { pattern: /^\/messages\/batch\/?$/, allow: ['POST'] },
  { pattern: /^\/messages\/[^/]+\/?$/, allow: ['GET'] },
];

/** Every method and path that no route serves: 405 with Allow on a known path, else 404. */
export async function unrouted(
  request: ApiRequestContext & { readonly path: string },
  deps: Omit<ReadMessageDeps, 'messages'>,
  headers: ResponseHeaders,
): Promise<ApiResult> {
  const caller = await requireKey(request.caller, request.sourceIp, deps, headers);
  enforce(await deps.limiter.peek(keySubject(caller), 'read'), headers);
  const route = ROUTES.find((r) => r.pattern.test(request.path));
  if (route) throw problems.methodNotAllowed(route.allow);
  throw problems.notFound(`There is no resource at ${request.path.slice(0, 200)}.`);
}
