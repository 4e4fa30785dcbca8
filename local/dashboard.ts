import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, normalize, resolve, sep } from 'node:path';
import type { PlanId } from '../lib/config/index.js';
import { contentTypeOf } from '../lambda/projects/deploy-manifest.js';
import { decodePathSegment } from '../lambda/shared/http.js';
import { problems, refuse } from '../lambda/shared/problem.js';
import { answerProxied } from './control-api.js';
import { type ProxyHandler, readBody, serveOnLoopback } from './loopback.js';
import { loopbackOrigins, writeProblem } from './loopback-guard.js';

const DASHBOARD_SOURCE_DIR = resolve(import.meta.dirname, '..', 'dashboard');
/** Where `vite build` puts the dashboard (dashboard/vite.config.ts). */
export const DASHBOARD_DIST_DIR = join(DASHBOARD_SOURCE_DIR, 'dist');

/** A demo owner of the development sign-in, linked to a demo account at start. */
export interface DemoOwner {
  readonly email: string;
  readonly plan: PlanId;
}

interface LocalDashboardOptions {
  readonly port: number;
  /** The local site bucket's origin (s3rver), where the pages upload deploy files. */
  readonly uploadOrigin?: string;
  readonly distDir: string;
  /** The control API's Lambda handler (lambda/control/http-handlers.ts), as deployed. */
  readonly handler: ProxyHandler;
  readonly messagesApiUrl: string;
  readonly platformDomain: string;
  /** The local edge: the app pairs every platform URL with the way it works locally. */
  readonly localEdgeUrl?: string;
  readonly demoOwners: readonly DemoOwner[];
}

/** The identity a development sign-in token carries: what Cognito's ID token gives on AWS. */
interface DevClaims {
  readonly sub: string;
  readonly email: string;
  readonly exp: number;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}$/;
const SESSION_SECONDS = 12 * 3600;

/** The local stand-in for Cognito: HMAC-signed tokens whose secret lives as long as the process. */
export class DevSignIn {
  private readonly secret = randomBytes(32);

  /** `dev:<email>` plays the part of Cognito's `sub`. */
  static ownerIdOf(email: string): string {
    return `dev:${email.trim().toLowerCase()}`;
  }

  issue(email: string): { token: string; claims: DevClaims } {
    const normalised = email.trim().toLowerCase();
    const exp = Math.floor(Date.now() / 1000) + SESSION_SECONDS;
    const claims: DevClaims = { sub: DevSignIn.ownerIdOf(normalised), email: normalised, exp };
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return { token: `${payload}.${this.sign(payload)}`, claims };
  }

  verify(token: string): DevClaims | undefined {
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined) return undefined;
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as DevClaims;
      return typeof claims.sub === 'string' && claims.exp * 1000 > Date.now() ? claims : undefined;
    } catch {
      return undefined;
    }
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url');
  }
}

/** `npx vite dashboard` (dashboard/vite.config.ts): the app from source, its /api proxied here. */
const VITE_DEV_SERVER = 'http://127.0.0.1:5173';

/** The app, `/config.json`, the development sign-in, and `/api/*` through the control API's handler as deployed. */
export async function startLocalDashboard(options: LocalDashboardOptions) {
  const signIn = new DevSignIn();
  const { uploadOrigin } = options;
  // The headers of CloudFront's response-headers policy; pages may PUT deploy files to the site bucket too.
  const pageHeaders = {
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Content-Security-Policy':
      `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'${uploadOrigin ? ` ${uploadOrigin}` : ''}; ` +
      'frame-ancestors \'none\'; base-uri \'self\'; form-action \'self\'',
  };
  const distDir = resolve(options.distDir);
  if (!existsSync(join(distDir, 'index.html'))) {
    throw new Error(`the dashboard is not built: ${join(distDir, 'index.html')} is missing (npm start builds it)`);
  }
  const runtimeConfig = JSON.stringify({
    apiBaseUrl: '/api',
    messagesApiUrl: options.messagesApiUrl,
    platformDomain: options.platformDomain,
    localEdgeUrl: options.localEdgeUrl,
    auth: { kind: 'dev', demoOwners: options.demoOwners },
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toUpperCase();
    if (url.pathname === '/api/dev/sign-in') return devSignIn(req, res, method);
    if (url.pathname === '/api' || url.pathname.startsWith('/api/')) return api(req, res, url);
    if (method !== 'GET' && method !== 'HEAD') return writeProblem(res, problems.methodNotAllowed(['GET', 'HEAD']));
    if (url.pathname === '/config.json') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...pageHeaders });
      return void res.end(method === 'HEAD' ? undefined : runtimeConfig);
    }
    return staticFile(res, url.pathname, method);
  }

  async function devSignIn(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    if (method !== 'POST') return writeProblem(res, problems.methodNotAllowed(['POST']));
    const raw = (await readBody(req, 16 * 1024))?.toString('utf8');
    let email: unknown;
    try {
      email = (JSON.parse(raw ?? '') as { email?: unknown }).email;
    } catch {
      return writeProblem(res, problems.badRequest('invalid_json', 'The body must be a JSON object: {"email": "you@example.com"}.'));
    }
    if (typeof email !== 'string' || !EMAIL.test(email.trim())) {
      return writeProblem(res, problems.badRequest('invalid_request', 'email: enter an email address such as you@example.com.'));
    }
    const { token, claims } = signIn.issue(email);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify({ token, email: claims.email, expiresAt: new Date(claims.exp * 1000).toISOString() }));
  }

  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const verified = token ? signIn.verify(token) : undefined;
    if (!verified) {
      // As API Gateway's Cognito authorizer: no valid token, no call to the function.
      const detail = 'Sign in again: the session is missing or has expired.';
      return writeProblem(res, refuse('unauthorized', detail, 401), { 'WWW-Authenticate': 'Bearer' });
    }
    const path = url.pathname.slice('/api'.length) || '/';
    const authorizer = { claims: { sub: verified.sub, email: verified.email } };
    return answerProxied(req, res, options.handler, { url, path, authorizer });
  }

  function staticFile(res: ServerResponse, pathname: string, method: string): void {
    const relative = normalize(decodePathSegment(pathname === '/' ? '/index.html' : pathname)).replace(/^([/\\])+/, '');
    const file = resolve(distDir, relative);
    if (!file.startsWith(distDir + sep) || !existsSync(file) || !statSync(file).isFile()) {
      return writeProblem(res, problems.notFound(`There is no file at ${pathname}.`));
    }
    // Hashed assets never change; index.html must be revalidated to pick up a new build.
    const cache = relative.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    // The API documents (docs/*.yaml) read as text in the browser rather than as a download.
    const type = file.endsWith('.yaml') ? 'text/plain; charset=utf-8' : contentTypeOf(file);
    res.writeHead(200, { 'Content-Type': type, 'Cache-Control': cache, ...pageHeaders });
    res.end(method === 'HEAD' ? undefined : readFileSync(file));
  }

  // Known once it listens: its own origin, and Vite's dev server (`npx vite dashboard`, which proxies /api here).
  let trustedOrigins: string[] = [];
  const listening = await serveOnLoopback('local dashboard', options.port, handle, {
    guard: { trustedOrigins: () => trustedOrigins },
  });
  trustedOrigins = [...loopbackOrigins(listening.url), ...loopbackOrigins(VITE_DEV_SERVER)];
  return listening;
}

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => join(f.parentPath, f.name));

/** What the app takes from outside dashboard/: the slug rule, and the API documents its build ships. */
const SHARED_SOURCES = [
  resolve(DASHBOARD_SOURCE_DIR, '..', 'lambda', 'projects', 'slug.ts'),
  resolve(DASHBOARD_SOURCE_DIR, '..', 'openapi', 'openapi.yaml'),
  resolve(DASHBOARD_SOURCE_DIR, '..', 'openapi', 'control-api.yaml'),
];

/** SHA-256 of the dashboard's sources (index.html, vite.config.ts, src/, public/, shared files): what a build is made of. */
export function dashboardSourceHash(): string {
  const inputs = [
    join(DASHBOARD_SOURCE_DIR, 'index.html'),
    join(DASHBOARD_SOURCE_DIR, 'vite.config.ts'),
    ...sourceFiles(join(DASHBOARD_SOURCE_DIR, 'src')),
    ...sourceFiles(join(DASHBOARD_SOURCE_DIR, 'public')),
    ...SHARED_SOURCES,
  ].sort();
  const hash = createHash('sha256');
  for (const file of inputs) hash.update(file).update(readFileSync(file));
  return hash.digest('hex');
}

const SOURCES_STAMP = '.sources-sha256';

/** Builds the dashboard unless `outDir` holds a build of the current sources; moved in by one rename. */
export async function buildDashboard(options: { outDir?: string; quiet?: boolean } = {}): Promise<string> {
  const outDir = options.outDir ?? DASHBOARD_DIST_DIR;
  const sources = dashboardSourceHash();
  const isCurrent = () =>
    existsSync(join(outDir, 'index.html')) &&
    existsSync(join(outDir, SOURCES_STAMP)) &&
    readFileSync(join(outDir, SOURCES_STAMP), 'utf8') === sources;
  if (isCurrent()) return outDir;

  const staging = `${outDir}.${process.pid}-${randomBytes(4).toString('hex')}`;
  const { build } = await import('vite');
  // Under vitest NODE_ENV is "test", which would make Vite bundle React's development build.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: join(DASHBOARD_SOURCE_DIR, 'vite.config.ts'),
      root: DASHBOARD_SOURCE_DIR,
      mode: 'production',
      logLevel: options.quiet ? 'warn' : 'info',
      build: { outDir: staging, emptyOutDir: true, sourcemap: false },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  writeFileSync(join(staging, SOURCES_STAMP), sources);
  if (isCurrent()) {
    // Another build of the same sources got there first: use it.
    rmSync(staging, { recursive: true, force: true });
  } else {
    rmSync(outDir, { recursive: true, force: true });
    renameSync(staging, outDir);
  }
  return outDir;
}
