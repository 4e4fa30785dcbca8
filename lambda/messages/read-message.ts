import type { RateLimits } from '../../contracts/plans.js';
import type { Caller } from '../keys/index.js';
import type { LimiterDecision, RateLimiter } from '../rate-limits/index.js';
import type { ApiResult, ResponseHeaders } from '../shared/http.js';
import { problems } from '../shared/problem.js';
import { enforce, keySubject, requireKey } from './access.js';
import { type ListMessagesOptions, listMessages, readAccountMessage } from './account-messages.js';
import type { MessageStore } from './ports.js';

export interface ReadMessageDeps {
  readonly limiter: RateLimiter;
  readonly messages: MessageStore;
  readonly anonymousLimits: RateLimits;
}

export interface ApiRequestContext {
  readonly caller: Caller;
  readonly sourceIp: string;
  /** Attributes for the request's log lines (request id, key id): passed along, not kept in the logger. */
  readonly log?: Readonly<Record<string, unknown>>;
}

/**
 * GET /messages/{id}: the record, for the account that sent it only (anything else is a 404).
 * Reads do not consume the sending budget; a banned key is refused.
 */
export async function readMessage(
  request: ApiRequestContext & { readonly id: string },
  deps: ReadMessageDeps,
  headers: ResponseHeaders,
): Promise<ApiResult> {
  const caller = await requireKey(request.caller, request.sourceIp, deps, headers);
  const [decision, found] = await Promise.allSettled([
    deps.limiter.peek(keySubject(caller), 'read'),
    readAccountMessage(caller.accountId, request.id, deps),
  ]);
  return { statusCode: 200, body: settledInOrder(decision, found, headers) };
}

/**
 * GET /messages: the caller's account's message log (list-messages.ts). The limiter's check and
 * the page's Query run side by side (one sequential round trip); a 429 still comes before a 400.
 */
export async function listAccountMessages(
  request: ApiRequestContext & { readonly query: ListMessagesOptions },
  deps: ReadMessageDeps,
  headers: ResponseHeaders,
): Promise<ApiResult> {
  const caller = await requireKey(request.caller, request.sourceIp, deps, headers);
  const [decision, page] = await Promise.allSettled([
    deps.limiter.peek(keySubject(caller), 'read'),
    listMessages(caller.accountId, request.query, deps),
  ]);
  return { statusCode: 200, body: settledInOrder(decision, page, headers) };
}

/** The limiter's answer first (429 before 404 or 400), then the read's. */
function settledInOrder<T>(
  decision: PromiseSettledResult<LimiterDecision>,
  read: PromiseSettledResult<T>,
  headers: ResponseHeaders,
): T {
  if (decision.status === 'rejected') throw decision.reason;
  enforce(decision.value, headers);
  if (read.status === 'rejected') throw read.reason;
  return read.value;
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
