import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type ControlServices, ControlRouter, MAX_CONTROL_BODY_BYTES } from '../lambda/control/control-router.js';
import { CONTROL_ROUTES } from '../lambda/control/routes/index.js';
import { refuse } from '../lambda/shared/problem.js';
import { localLambdaContext, type ProxyHandler, readBody, serveOnLoopback } from './loopback.js';
import { writeProblem } from './loopback-guard.js';

/** Answers a loopback request with a control API handler, given the proxy event API Gateway would pass it. */
export async function answerProxied(
  req: IncomingMessage,
  res: ServerResponse,
  handler: ProxyHandler,
  request: { readonly url: URL; readonly path: string; readonly authorizer?: Record<string, unknown> },
): Promise<void> {
  const body = (await readBody(req, MAX_CONTROL_BODY_BYTES))?.toString('utf8');
  if (body === undefined) {
    // The rest of the body is not read: the connection cannot be reused.
    return writeProblem(res, refuse('payload_too_large', 'The body is too large.', 413), { Connection: 'close' });
  }
  const requestId = randomUUID();
  const method = (req.method ?? 'GET').toUpperCase();
  const event = {
    resource: '/{proxy+}',
    path: request.path,
    httpMethod: method,
    headers: Object.fromEntries(Object.entries(req.headers).filter(([, value]) => typeof value === 'string')),
    multiValueHeaders: {},
    queryStringParameters: Object.fromEntries(request.url.searchParams),
    multiValueQueryStringParameters: null,
    pathParameters: { proxy: request.path.slice(1) },
    stageVariables: null,
    body: body.length > 0 ? body : null,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      path: request.url.pathname,
      httpMethod: method,
      resourcePath: '/{proxy+}',
      stage: 'local',
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' },
      authorizer: request.authorizer ?? null,
    },
  } as unknown as APIGatewayProxyEvent;
  const answer = await handler(event, localLambdaContext('control-api', requestId, 30_000));
  res.writeHead(answer.statusCode, answer.headers as Record<string, string>);
  res.end(answer.body);
}

/** The CLI's control API: the dashboard's router, every caller an operator, unauthenticated on loopback. */
export async function startControlApi(services: ControlServices, port: number) {
  const router = new ControlRouter(services, CONTROL_ROUTES, () => ({ kind: 'operator' }));
  const handler: ProxyHandler = (event, context) => router.answer(event, context);
  // Loopback names only, and no state change from any page (the dashboard has its own server).
  return serveOnLoopback('control API', port, async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    await answerProxied(req, res, handler, { url, path: url.pathname });
  }, { guard: {} });
}
