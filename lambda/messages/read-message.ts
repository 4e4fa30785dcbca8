import type { RateLimits } from '../../contracts/plans.js';
import type { Caller } from '../keys/index.js';
import type { RateLimiter } from '../rate-limits/index.js';
import type { ApiResult, ResponseHeaders } from '../shared/http.js';
import { problems } from '../shared/problem.js';
import { enforce, keySubject, requireKey } from './access.js';
import { MESSAGE_ID_PATTERN, toPublicMessage } from './message.js';
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
  const wellFormed = MESSAGE_ID_PATTERN.test(request.id);
  const [decision, record] = await Promise.all([
    deps.limiter.peek(keySubject(caller), 'read'),
    wellFormed ? deps.messages.get(request.id) : Promise.resolve(undefined),
  ]);
  enforce(decision, headers);
  if (!record || record.accountId !== caller.accountId) {
    throw problems.notFound(`No message ${wellFormed ? request.id : 'with that id'} exists for this account.`);
  }
  return { statusCode: 200, body: toPublicMessage(record) };
}

/** The routes of the API and their methods, for 404 vs 405 on anything that is not routed. */
const ROUTES: ReadonlyArray<{ pattern: RegExp; allow: readonly string[] }> = [
  { pattern: /^\/messages\/?$/, allow: ['POST'] },
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
