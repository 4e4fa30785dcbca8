import { STATUS_CODES } from 'node:http';
import type { RateLimits } from '../lib/config/index.js';
import type { AccountView, ControlPlaneClient, KeyView, UsageView } from './control-plane-client.js';
import { CliError } from './errors.js';

export const DEFAULT_CONTROL_URL = 'http://127.0.0.1:3001';

/** Codes the control plane itself answers with; any other 404/405 means the URL is not its API. */
const CONTROL_PLANE_CODES = new Set(['invalid_request', 'account_not_found', 'key_not_found', 'key_revoked']);

const START_HINT = 'is the local platform running? start it with npm start (or pass --url, or --stack/--outputs for a deployed stack)';
const URL_HINT = 'is --url the control-plane API? npm start prints it as "Control-plane API at …"';

export interface HttpControlPlaneClientOptions {
  /** @default 30 000 */
  readonly timeoutMs?: number;
  /** @default the global fetch */
  readonly fetch?: typeof fetch;
}

/** The control plane over the local control-plane HTTP API (local/control-api.ts). */
export class HttpControlPlaneClient implements ControlPlaneClient {
  private readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly options: HttpControlPlaneClientOptions = {},
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  createAccount(input: { name: string; plan: string; limits?: RateLimits }): Promise<AccountView> {
    return this.request('POST', '/accounts', input);
  }

  getAccount(accountId: string): Promise<AccountView> {
    return this.request('GET', `/accounts/${seg(accountId)}`);
  }

  createKey(accountId: string, name: string): Promise<{ secret: string; key: KeyView }> {
    return this.request('POST', `/accounts/${seg(accountId)}/keys`, { name });
  }

  async listKeys(accountId: string): Promise<KeyView[]> {
    const body = await this.request<{ keys?: KeyView[] }>('GET', `/accounts/${seg(accountId)}/keys`);
    if (!Array.isArray(body.keys)) throw new CliError(`unexpected answer from ${this.baseUrl}: no "keys" list`, { hint: URL_HINT });
    return body.keys;
  }

  revokeKey(accountId: string, keyId: string): Promise<KeyView> {
    return this.request('DELETE', `/accounts/${seg(accountId)}/keys/${seg(keyId)}`);
  }

  setPlan(accountId: string, input: { plan: string; limits?: RateLimits }): Promise<AccountView> {
    return this.request('PUT', `/accounts/${seg(accountId)}/plan`, input);
  }

  liftBan(accountId: string, keyId: string): Promise<{ keyId: string; wasBanned: boolean }> {
    return this.request('DELETE', `/accounts/${seg(accountId)}/keys/${seg(keyId)}/ban`);
  }

  usage(accountId: string): Promise<UsageView> {
    return this.request('GET', `/accounts/${seg(accountId)}/usage`);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const url = `${this.baseUrl}${path}`;
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    let res: Response;
    try {
      res = await (this.options.fetch ?? fetch)(url, {
        method,
        headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw networkError(error, this.baseUrl, timeoutMs);
    }

    const text = await res.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }

    if (!res.ok) {
      const problem = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
      const code = typeof problem.code === 'string' ? problem.code : undefined;
      const detail = typeof problem.detail === 'string' ? problem.detail : `HTTP ${res.status} ${res.statusText || STATUS_CODES[res.status] || ''}`.trim();
      type FieldError = { field: string; message: string };
      const errors = Array.isArray(problem.errors) ? (problem.errors as FieldError[]) : undefined;
      // A 401/403/404/405 without a control-plane code: the URL is some other server (the local
      // control API has no authentication), e.g. the Messages API's port.
      const foreign = [401, 403, 404, 405].includes(res.status) && !CONTROL_PLANE_CODES.has(code ?? '');
      throw new CliError(detail, {
        status: res.status,
        ...(code ? { code } : {}),
        ...(errors ? { errors } : {}),
        ...(foreign ? { hint: URL_HINT } : {}),
      });
    }
    if (typeof parsed !== 'object' || parsed === null) {
      throw new CliError(`unexpected answer from ${url}: not a JSON document`, { status: res.status, hint: URL_HINT });
    }
    return parsed as T;
  }
}

const seg = (value: string) => encodeURIComponent(value);

/** A failed fetch: connection refused, unknown host, timeout… as one clear error. */
function networkError(error: unknown, baseUrl: string, timeoutMs: number): CliError {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new CliError(`the control-plane API at ${baseUrl} did not answer within ${timeoutMs / 1000} s`, {
      code: 'timeout',
      cause: error,
    });
  }
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const code = cause?.code ?? (error as { code?: string } | null)?.code;
  const reason = code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new CliError(`cannot reach the control-plane API at ${baseUrl} (${reason})`, {
    code: 'network',
    cause: error,
    hint: code === 'ECONNREFUSED' ? START_HINT : 'check --url (or PLATFORM_CONTROL_URL)',
  });
}
