import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { HttpProblem, refuse } from '../lambda/shared/problem.js';

// The local servers listen on 127.0.0.1 only, but a web page the developer visits can still reach
// them through the browser: by DNS rebinding (the attacker's name in Host) or by a plain cross-site
// request (a form POST needs no CORS preflight). The guard answers neither:
// - Host must be a loopback name (127.0.0.1, localhost, [::1]; any port). Otherwise 421.
// - A state-changing request that carries an Origin (or a cross-site or same-site Sec-Fetch-Site)
//   must come from a trusted origin (the local dashboard's). Otherwise 403, before the body is
//   read or any route runs. The CLI and curl send no Origin and are served as before.

export interface LoopbackGuardOptions {
  /** Origins (scheme://host:port) allowed to change state, read per request. @default none */
  readonly trustedOrigins?: () => readonly string[];
  /**
   * Refuse state-changing requests from untrusted pages. Off only where every such route needs a
   * credential no cross-origin page can send without a preflight (the Messages API's Bearer key).
   */
  readonly checkOrigin?: boolean;
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Is a Host header a loopback name (with an optional port)? */
export function isLoopbackHost(host: string | undefined): boolean {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(host?.trim() ?? '');
  return LOOPBACK_NAMES.has((match?.[1] ?? '').toLowerCase().replace(/\.$/, ''));
}

/** The same origin under each loopback name: a page on http://localhost:3002 is the one on http://127.0.0.1:3002. */
export function loopbackOrigins(url: string): string[] {
  const { protocol, port } = new URL(url);
  return [...LOOPBACK_NAMES].map((name) => `${protocol}//${name}${port ? `:${port}` : ''}`);
}

/** Why the request is refused, or undefined when it may go on. */
export function refusalOf(
  req: Pick<IncomingMessage, 'method' | 'headers'>,
  options: LoopbackGuardOptions = {},
): HttpProblem | undefined {
  const host = req.headers.host;
  if (!isLoopbackHost(host)) {
    const detail = `This server answers loopback names only (127.0.0.1, localhost, [::1]), not ${JSON.stringify(host ?? '')}.`;
    return new HttpProblem({ status: 421, code: 'forbidden', title: 'Misdirected Request', detail });
  }
  if (options.checkOrigin === false || !STATE_CHANGING.has((req.method ?? 'GET').toUpperCase())) return undefined;
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const trusted = options.trustedOrigins?.() ?? [];
    if (!trusted.includes(origin.toLowerCase())) {
      return refuse('forbidden', `State-changing requests from ${origin} are refused: only the local dashboard may send them.`, 403);
    }
    return undefined;
  }
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') {
    return refuse('forbidden', `State-changing requests from another site (Sec-Fetch-Site: ${site}) are refused.`, 403);
  }
  return undefined;
}

/** Writes a problem document, as the control API renders one. */
export function writeProblem(res: ServerResponse, problem: HttpProblem, headers: Record<string, string> = {}): void {
  const requestId = randomUUID();
  res.writeHead(problem.status, {
    ...problem.headers,
    ...headers,
    'Content-Type': 'application/problem+json',
    'Cache-Control': 'no-store',
    'X-Request-Id': requestId,
  });
  res.end(JSON.stringify(problem.toBody(requestId)));
}

/** A server's request listener behind the guard: `createServer(guardLoopback(listener, options))`. */
export function guardLoopback(listener: RequestListener, options: LoopbackGuardOptions = {}): RequestListener {
  return (req, res) => {
    const refusal = refusalOf(req, options);
    // The body is not read: the connection cannot be reused.
    if (refusal) return writeProblem(res, refusal, { Connection: 'close' });
    return listener(req, res);
  };
}
