import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import type { DeliveryNetworkPolicy } from './network-policy.js';
import { urlProblem } from './network-policy.js';

interface PostOutcome {
  readonly ok: boolean;
  readonly statusCode?: number;
  readonly durationMs: number;
  /** Why it failed, without internals: `timeout`, `address_not_allowed`, a socket error code, `status 500`. */
  readonly error?: string;
}

export type WebhookPoster = (
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
) => Promise<PostOutcome>;

/**
 * POSTs through request-filtering-agent, which checks every address connected to against `policy`
 * (at connect time). A 2xx within `timeoutMs` is success; redirects are not followed; the body is not read.
 */
export function createWebhookPoster(
  policy: DeliveryNetworkPolicy,
  options: { readonly timeoutMs: number; readonly now?: () => number },
): WebhookPoster {
  const filter = {
    allowPrivateIPAddress: false,
    allowMetaIPAddress: false,
    allowIPAddressList: [...policy.allowedAddresses],
    keepAlive: true,
  };
  const agents = { http: new RequestFilteringHttpAgent(filter), https: new RequestFilteringHttpsAgent(filter) };
  // Durations are measured on the real clock: the platform's clock may be a test's ManualClock.
  const now = options.now ?? (() => performance.now());
  return (url, headers, body) => {
    const started = now();
    const elapsed = () => Math.round(now() - started);
    const refused = urlProblem(url, policy);
    if (refused) return Promise.resolve({ ok: false, durationMs: 0, error: `url_not_allowed: ${refused}` });
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    return new Promise<PostOutcome>((resolve) => {
      const request = client.request(
        target,
        {
          method: 'POST',
          agent: target.protocol === 'https:' ? agents.https : agents.http,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
          signal: AbortSignal.timeout(options.timeoutMs),
          ...(policy.lookup ? { lookup: policy.lookup } : {}),
        },
        (response) => {
          const statusCode = response.statusCode ?? 0;
          response.resume();
          response.on('error', () => {});
          const ok = statusCode >= 200 && statusCode < 300;
          resolve({ ok, statusCode, durationMs: elapsed(), ...(ok ? {} : { error: `status ${statusCode}` }) });
        },
      );
      request.on('error', (error: NodeJS.ErrnoException) =>
        resolve({ ok: false, durationMs: elapsed(), error: describeFailure(error, options.timeoutMs) }),
      );
      request.end(body);
    });
  };
}

function describeFailure(error: NodeJS.ErrnoException, timeoutMs: number): string {
  if (error.name === 'AbortError' || error.name === 'TimeoutError') return `timeout: no answer within ${timeoutMs / 1000} s`;
  // request-filtering-agent's refusal (its message names the address and why).
  if (/is not allowed/.test(error.message)) return 'address_not_allowed: the endpoint resolves to a non-public address';
  if (error.code) return `connection_failed: ${error.code}`;
  return 'connection_failed';
}
