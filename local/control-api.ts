import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { PROBLEM_TYPE_BASE } from '../lib/constructs/messages/gateway-responses.js';
import { DomainError, type DomainService } from '../lambda/domains/domain-service.js';
import { type ControlPlane, ControlPlaneError } from '../lambda/keys/control-plane.js';
import { type DeployFile, ProjectError, type ProjectService } from '../lambda/projects/project-service.js';
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
export interface ControlServices {
  readonly controlPlane: ControlPlane;
  readonly projects: ProjectService;
  readonly domains: DomainService;
}

export function controlApiRoutes({ controlPlane, projects, domains }: ControlServices): Route[] {
  const base = '/accounts/{accountId}/projects/{projectId}';
  const ids = (p: Record<string, string>) => [p.accountId as string, p.projectId as string] as const;
  return [
    route('POST', '/accounts/{accountId}/projects', async (p, body) => ({
      status: 201,
      body: await projects.createProject(p.accountId as string, { slug: body.slug, name: body.name }),
    })),
    route('GET', '/accounts/{accountId}/projects', async (p) => ({
      status: 200,
      body: { projects: await projects.listProjects(p.accountId as string) },
    })),
    route('GET', base, async (p) => ({ status: 200, body: await projects.getProject(...ids(p)) })),
    route('POST', `${base}/deploys`, async (p, body) => ({
      status: 201,
      body: await projects.deploy(...ids(p), deployFiles(body.files)),
    })),
    route('GET', `${base}/domains`, async (p) => ({ status: 200, body: { domains: await domains.list(...ids(p)) } })),
    route('POST', `${base}/domains`, async (p, body) => ({ status: 201, body: await domains.add(...ids(p), body.domain) })),
    route('GET', `${base}/domains/{domain}`, async (p) => ({
      status: 200,
      body: await domains.get(...ids(p), p.domain as string),
    })),
    route('POST', `${base}/domains/{domain}/verify`, async (p) => ({
      status: 202,
      body: await domains.verify(...ids(p), p.domain as string),
    })),
    route('POST', `${base}/domains/{domain}/reverify`, async (p) => ({
      status: 202,
      body: await domains.verify(...ids(p), p.domain as string),
    })),
    route('DELETE', `${base}/domains/{domain}`, async (p) => ({
      status: 200,
      body: await domains.remove(...ids(p), p.domain as string),
    })),
    route('PUT', `${base}/domain-config/primary`, async (p, body) => ({
      status: 200,
      body: await domains.setPrimary(...ids(p), typeof body.domain === 'string' ? body.domain : ''),
    })),
    route('POST', `${base}/domain-config/redirects`, async (p, body) => ({
      status: 200,
      body: await domains.addRedirect(...ids(p), { from: body.from, to: body.to, status: body.status }),
    })),
    route('DELETE', `${base}/domain-config/redirects/{from}`, async (p) => ({
      status: 200,
      body: await domains.removeRedirect(...ids(p), p.from as string),
    })),
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

/** Deploys carry their files (base64) in the body. */
const MAX_BODY_BYTES = 20 * 1024 * 1024;
const STATUS_TITLES: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  502: 'Bad Gateway',
};

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `files: [{ path, content }]` with base64 content, as the CLI sends a folder. */
function deployFiles(value: unknown): DeployFile[] {
  if (!Array.isArray(value)) throw new ProjectError('invalid_request', 'files must be a list of {path, content (base64)}.', 400);
  return value.map((file: unknown) => {
    const { path, content } = (file ?? {}) as { path?: unknown; content?: unknown };
    if (typeof path !== 'string' || typeof content !== 'string' || !BASE64.test(content)) {
      throw new ProjectError('invalid_request', 'Each file needs a path and base64 content.', 400);
    }
    return { path, body: Buffer.from(content, 'base64') };
  });
}

export async function startControlApi(
  services: ControlServices,
  port: number,
): Promise<{ url: string; server: Server; stop(): Promise<void> }> {
  const routes = controlApiRoutes(services);
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
    if (raw === undefined) {
      // The rest of the body is not read: the connection cannot be reused.
      return problem(res, 413, 'payload_too_large', 'Payload Too Large', 'The body is too large.', { Connection: 'close' });
    }
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
    // A parameter that is not valid percent-encoding is taken as is: it names nothing, so the
    // route answers its own 404 (e.g. account_not_found) rather than failing.
    const params = Object.fromEntries(match.params.map((name, i) => [name, safeDecode(values[i] ?? '')]));
    try {
      const result = await match.handler(params, body);
      res.writeHead(result.status, {
        'Content-Type': 'application/json',
        'Cache-Control': 'no-store',
        'X-Request-Id': randomUUID(),
      });
      res.end(JSON.stringify(result.body));
    } catch (error) {
      if (error instanceof ControlPlaneError) {
        return problem(res, error.status, error.code, STATUS_TITLES[error.status] ?? 'Error', error.message, {}, error.errors);
      }
      if (error instanceof ProjectError || error instanceof DomainError) {
        return problem(res, error.status, error.code, STATUS_TITLES[error.status] ?? 'Error', error.message);
      }
      throw error;
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
