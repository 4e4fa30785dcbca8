import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { PROBLEM_TYPE_BASE } from '../lib/constructs/messages/gateway-responses.js';
import { type ControlPlane, ControlPlaneError } from '../lambda/keys/control-plane.js';
import { listenOnLoopback } from './loopback.js';

type Handler = (
  params: Record<string, string>,
  body: Record<string, unknown>,
) => Promise<{ status: number; body: unknown }>;

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly params: readonly string[];
  readonly handler: Handler;
}

const route = (method: string, path: string, handler: Handler): Route => {
  const params: string[] = [];
  const pattern = new RegExp(
    `^${path.replace(/\{(\w+)\}/g, (_, name: string) => {
      params.push(name);
      return '([^/]+)';
    })}/?$`,
  );
  return { method, pattern, params, handler };
};

/**
 * The control-plane HTTP API (accounts, plans, keys, bans, usage) that the operator CLI and the
 * dashboard call. Locally it listens on loopback without authentication; on AWS it sits behind
 * Cognito (dashboard issue). Errors are RFC 9457 problem documents.
 */
export function controlApiRoutes(controlPlane: ControlPlane): Route[] {
  return [
    route('POST', '/accounts', async (_, body) => ({
      status: 201,
      body: await controlPlane.createAccount({ name: body.name, plan: body.plan, limits: body.limits }),
    })),
    route('GET', '/accounts/{accountId}', async (p) => ({ status: 200, body: await controlPlane.getAccount(p.accountId as string) })),
    route('PUT', '/accounts/{accountId}/plan', async (p, body) => ({
      status: 200,
      body: await controlPlane.setPlan(p.accountId as string, { plan: body.plan, limits: body.limits }),
    })),
    route('POST', '/accounts/{accountId}/keys', async (p, body) => ({
      status: 201,
      body: await controlPlane.createKey(p.accountId as string, body.name),
    })),
    route('GET', '/accounts/{accountId}/keys', async (p) => ({
      status: 200,
      body: { keys: await controlPlane.listKeys(p.accountId as string) },
    })),
    route('DELETE', '/accounts/{accountId}/keys/{keyId}', async (p) => ({
      status: 200,
      body: await controlPlane.revokeKey(p.accountId as string, p.keyId as string),
    })),
    route('DELETE', '/accounts/{accountId}/keys/{keyId}/ban', async (p) => ({
      status: 200,
      body: await controlPlane.liftBan(p.accountId as string, p.keyId as string),
    })),
    route('GET', '/accounts/{accountId}/usage', async (p) => ({ status: 200, body: await controlPlane.usage(p.accountId as string) })),
  ];
}

const MAX_BODY_BYTES = 64 * 1024;
const STATUS_TITLES: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 409: 'Conflict' };

export async function startControlApi(
  controlPlane: ControlPlane,
  port: number,
): Promise<{ url: string; server: Server; stop(): Promise<void> }> {
  const routes = controlApiRoutes(controlPlane);
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      console.error('control API error', error);
      if (!res.headersSent) problem(res, 500, 'internal_error', 'Internal Server Error', 'Something went wrong.');
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toUpperCase();
    const matching = routes.filter((r) => r.pattern.test(url.pathname));
    if (matching.length === 0) return problem(res, 404, 'not_found', 'Not Found', `There is no resource at ${url.pathname}.`);
    const match = matching.find((r) => r.method === method);
    if (!match) {
      const allow = matching.map((r) => r.method).join(', ');
      return problem(res, 405, 'method_not_allowed', 'Method Not Allowed', `Allowed methods: ${allow}.`, { Allow: allow });
    }

    let body: Record<string, unknown> = {};
    const raw = await readBody(req);
    if (raw === undefined) return problem(res, 413, 'payload_too_large', 'Payload Too Large', 'The body is too large.');
    if (raw.length > 0) {
      if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
        return problem(res, 400, 'unsupported_media_type', 'Bad Request', 'Content-Type must be application/json.');
      }
      try {
        const parsed: unknown = JSON.parse(raw);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
        body = parsed as Record<string, unknown>;
      } catch {
        return problem(res, 400, 'invalid_json', 'Bad Request', 'The body must be a JSON object.');
      }
    }

    const values = match.pattern.exec(url.pathname)?.slice(1) ?? [];
    const params = Object.fromEntries(match.params.map((name, i) => [name, decodeURIComponent(values[i] ?? '')]));
    try {
      const result = await match.handler(params, body);
      res.writeHead(result.status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end(JSON.stringify(result.body));
    } catch (error) {
      if (!(error instanceof ControlPlaneError)) throw error;
      problem(res, error.status, error.code, STATUS_TITLES[error.status] ?? 'Error', error.message, {}, error.errors);
    }
  }

  const listening = await listenOnLoopback(server, port);
  return { url: listening.url, server, stop: listening.stop };
}

function problem(
  res: ServerResponse,
  status: number,
  code: string,
  title: string,
  detail: string,
  headers: Record<string, string> = {},
  errors?: ReadonlyArray<{ field: string; message: string }>,
): void {
  const requestId = randomUUID();
  res.writeHead(status, { ...headers, 'Content-Type': 'application/problem+json', 'X-Request-Id': requestId });
  res.end(JSON.stringify({ type: `${PROBLEM_TYPE_BASE}${code}`, title, status, detail, code, requestId, ...(errors ? { errors } : {}) }));
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
