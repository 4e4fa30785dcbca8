import { STATUS_CODES } from 'node:http';
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../contracts/openapi/control-api.js';
import type { OperatorClient, RateLimits } from './operator-client.js';
import { CliError, type CliErrorOptions } from './errors.js';

export const DEFAULT_CONTROL_URL = 'http://127.0.0.1:3001';

/** The control API's codes on a 401/403/404/405: such an answer without one is from another server. */
const CONTROL_API_CODES = new Set(['account_not_found', 'key_not_found', 'project_not_found', 'deploy_not_found', 'domain_not_found', 'plan_required']);

const START_HINT = 'is the local platform running? start it with npm start (or pass --url, or --stack/--outputs for a deployed stack)';
const URL_HINT = 'is --url the control API? npm start prints it as "Control API at …"';

const account = (accountId: string) => ({ params: { path: { accountId } } });

type Settled<T> = { data?: T; error?: unknown; response: Response };
type Send<T> = (api: Client<paths>) => Promise<Settled<T>>;

type Schemas = components['schemas'];

/** The local control API (local/control-api.ts), typed by openapi/control-api.yaml through openapi-fetch. */
export class ControlApiClient implements OperatorClient {
  private readonly baseUrl: string;
  private readonly api: Client<paths>;
  private readonly timeoutMs: number;

  constructor(baseUrl: string, options: { timeoutMs?: number; fetch?: (request: Request) => Promise<Response> } = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 30_000;
    const send = options.fetch ?? ((request: Request) => fetch(request));
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      // The signal ends the request; the race ends the wait even where a fetch does not honour it.
      fetch: (request) => {
        const signal = AbortSignal.timeout(this.timeoutMs);
        const timedOut = new Promise<never>((_, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        });
        return Promise.race([send(new Request(request, { signal })), timedOut]);
      },
    });
  }

  createAccount(input: { name: string; plan: string; limits?: RateLimits }) {
    return this.call((api) => api.POST('/accounts', { body: input as Schemas['CreateAccountRequest'] }));
  }

  getAccount(accountId: string) {
    return this.call((api) => api.GET('/accounts/{accountId}', account(accountId)));
  }

  createKey(accountId: string, name: string) {
    return this.call((api) => api.POST('/accounts/{accountId}/keys', { ...account(accountId), body: { name } }));
  }

  listKeys(accountId: string) {
    return this.list('keys', (api) => api.GET('/accounts/{accountId}/keys', account(accountId)));
  }

  revokeKey(accountId: string, keyId: string) {
    return this.call((api) => api.DELETE('/accounts/{accountId}/keys/{keyId}', { params: { path: { accountId, keyId } } }));
  }

  setPlan(accountId: string, input: { plan: string; limits?: RateLimits }) {
    const body = input as Schemas['SetPlanRequest'];
    return this.call((api) => api.PUT('/accounts/{accountId}/plan', { ...account(accountId), body }));
  }

  liftBan(accountId: string, keyId: string) {
    return this.call((api) => api.DELETE('/accounts/{accountId}/keys/{keyId}/ban', { params: { path: { accountId, keyId } } }));
  }

  usage(accountId: string) {
    return this.call((api) => api.GET('/accounts/{accountId}/usage', account(accountId)));
  }

  usageHistory(accountId: string, days?: number) {
    const params = { path: { accountId }, ...(days === undefined ? {} : { query: { days } }) };
    return this.call((api) => api.GET('/accounts/{accountId}/usage/history', { params }));
  }

  upgradeRequests() {
    return this.list('upgradeRequests', (api) => api.GET('/upgrade-requests'));
  }

  /** The `name` list of a call's body, or a CliError when the body has none. */
  async list<K extends string, T>(name: K, send: Send<{ [key in K]?: T[] }>): Promise<T[]> {
    const value = (await this.call(send))[name];
    if (Array.isArray(value)) return value;
    throw new CliError(`unexpected answer from ${this.baseUrl}: no "${name}" list`, { hint: URL_HINT });
  }

  /** One call of the generated client: its body, or a CliError; a refusal with code `answeredProblem` is the answer. */
  async call<T>(send: Send<T>, answeredProblem?: string): Promise<T> {
    let settled: Settled<T>;
    try {
      settled = await send(this.api);
    } catch (error) {
      if (error instanceof SyntaxError) {
        throw new CliError(`unexpected answer from ${this.baseUrl}: not a JSON document`, { hint: URL_HINT });
      }
      throw networkError(error, this.baseUrl, this.timeoutMs);
    }
    const { data, error, response } = settled;
    if (!response.ok) {
      const problem = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
      const code = typeof problem.code === 'string' ? problem.code : undefined;
      if (answeredProblem !== undefined && code === answeredProblem) return problem as T;
      const fallback = `HTTP ${response.status} ${response.statusText || STATUS_CODES[response.status] || ''}`.trim();
      const detail = typeof problem.detail === 'string' ? problem.detail : fallback;
      const errors = Array.isArray(problem.errors) ? (problem.errors as CliErrorOptions['errors']) : undefined;
      // The local control API has no authentication: e.g. the Messages API's port answers these.
      const foreign = [401, 403, 404, 405].includes(response.status) && !CONTROL_API_CODES.has(code ?? '');
      throw new CliError(detail, { status: response.status, code, errors, hint: foreign ? URL_HINT : undefined });
    }
    if (typeof data !== 'object' || data === null) {
      throw new CliError(`unexpected answer from ${this.baseUrl}: not a JSON document`, { status: response.status, hint: URL_HINT });
    }
    return data;
  }
}

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
