import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type ControlServices, ControlRouter, MAX_CONTROL_BODY_BYTES, type Principal } from '../lambda/control/control-router.js';
import { CONTROL_ROUTES } from '../lambda/control/routes/index.js';
import { type ProblemCode, refuse } from '../lambda/shared/problem.js';
import { listenOnLoopback, localLambdaContext } from './loopback.js';
import { guardLoopback } from './loopback-guard.js';

/** Reads a request body up to the control API's limit; undefined when it is larger. */
export async function readBody(req: IncomingMessage, limit = MAX_CONTROL_BODY_BYTES): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes a problem document, as the control API renders one. */
export function writeProblem(
  res: ServerResponse,
  status: number,
  code: ProblemCode,
  detail: string,
  headers: Record<string, string> = {},
): void {
  const requestId = randomUUID();
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/problem+json',
    'Cache-Control': 'no-store',
    'X-Request-Id': requestId,
  });
  res.end(JSON.stringify(refuse(code, detail, status).toBody(requestId)));
}

/** The API Gateway (REST, proxy) event of a loopback request, as API Gateway would pass it. */
export function proxyEventOf(
  req: IncomingMessage,
  request: {
    readonly path: string;
    readonly query: URLSearchParams;
    readonly body: string;
    readonly requestId: string;
  },
  authorizer: Record<string, unknown> | null = null,
): APIGatewayProxyEvent {
  const headers = Object.fromEntries(
    Object.entries(req.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
  );
  const method = (req.method ?? 'GET').toUpperCase();
  return {
    resource: '/{proxy+}',
    path: request.path,
    httpMethod: method,
    headers,
    multiValueHeaders: {},
    queryStringParameters: Object.fromEntries(request.query),
    multiValueQueryStringParameters: null,
    pathParameters: { proxy: request.path.slice(1) },
    stageVariables: null,
    body: request.body.length > 0 ? request.body : null,
    isBase64Encoded: false,
    requestContext: {
      requestId: request.requestId,
      path: request.path,
      httpMethod: method,
      resourcePath: '/{proxy+}',
      stage: 'local',
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' },
      authorizer,
    },
  } as unknown as APIGatewayProxyEvent;
}

const OPERATOR: Principal = { kind: 'operator' };

/**
 * The operator's control API (the CLI's `--url` mode): every account, plans and bans, through the
 * same router as the dashboard's Lambda with every caller an operator. Locally it listens on
 * loopback without authentication; on AWS operators use the CLI with IAM, and owners reach the
 * same routes through the dashboard's API (Cognito) on their own account.
 */
export async function startControlApi(
  services: ControlServices,
  port: number,
): Promise<{ url: string; server: Server; stop(): Promise<void> }> {
  const router = new ControlRouter(services, CONTROL_ROUTES, () => OPERATOR);
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (body === undefined) {
      // The rest of the body is not read: the connection cannot be reused.
      return writeProblem(res, 413, 'payload_too_large', 'The body is too large.', { Connection: 'close' });
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const requestId = randomUUID();
    const event = proxyEventOf(req, { path: url.pathname, query: url.searchParams, body, requestId });
    const answer = await router.answer(event, localLambdaContext('control-api', requestId, 30_000));
    res.writeHead(answer.statusCode, answer.headers as Record<string, string>);
    res.end(answer.body);
  }
  // Loopback names only, and no state change from any page (the dashboard has its own server): local/loopback-guard.ts.
  const server = createServer(guardLoopback((req, res) => {
    serve(req, res).catch((error: unknown) => {
      console.error('control API error', error);
      if (!res.headersSent) writeProblem(res, 500, 'internal_error', 'Something went wrong.');
    });
  }));
  const listening = await listenOnLoopback(server, port);
  return { url: listening.url, server, stop: listening.stop };
}
