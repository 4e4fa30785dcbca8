import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
} from 'aws-lambda';
import { decodePathSegment } from '../lambda/shared/http.js';
import { gatewayProblemBody, gatewayResponse } from '../contracts/gateway-responses.js';
import type { LocalFirewall } from './firewall.js';
import { type LocalHandler, localLambdaContext, type ProxyHandler, readBody, serveOnLoopback } from './loopback.js';
import type { UsagePlans } from './usage-plans.js';

interface LocalRoute {
  readonly method: string;
  /** API Gateway resource, e.g. /messages/{id}. */
  readonly resource: string;
  readonly handler: ProxyHandler;
}

interface LocalApiGatewayOptions {
  readonly port: number;
  readonly routes: readonly LocalRoute[];
  /** Serves every method and path no route serves (API Gateway: ANY /{proxy+}). */
  readonly fallback: ProxyHandler;
  readonly authorizer: LocalHandler<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult>;
  readonly usagePlans: UsagePlans;
  /** The web ACL's rate rules, before anything else (as WAF is in front of API Gateway). */
  readonly firewall: LocalFirewall;
}

/** API Gateway's payload limit for REST APIs. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
const STAGE = 'v1';

/** API Gateway (REST, Lambda proxy): authorizer → usage plans → handler, or the configured gateway responses. */
export async function startLocalApiGateway(options: LocalApiGatewayOptions) {
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toUpperCase();
    const body = await readBody(req, MAX_PAYLOAD_BYTES);
    if (!body) return sendGatewayResponse(res, 'REQUEST_TOO_LARGE', requestId, { connection: 'close' });

    const { route, pathParameters } = match(options.routes, method, url.pathname);
    const resource = route?.resource ?? '/{proxy+}';
    const sourceIp = req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1';
    const blocked = options.firewall.inspect(sourceIp, req.headers.authorization);
    if (blocked) {
      const { statusCode, headers, contentType, body } = blocked.response;
      return void res.writeHead(statusCode, { ...headers, 'Content-Type': contentType }).end(body);
    }
    const query = Object.fromEntries(url.searchParams);
    const request = {
      resource,
      path: url.pathname,
      httpMethod: method,
      ...headersOf(req),
      queryStringParameters: Object.keys(query).length ? query : null,
      multiValueQueryStringParameters: null,
      stageVariables: null,
    };
    const context = (authorizer: Record<string, unknown> | null) => ({
      accountId: '000000000000',
      apiId: 'local',
      authorizer,
      httpMethod: method,
      // Served at the root locally, as behind a custom domain with an empty base path mapping.
      path: url.pathname,
      protocol: 'HTTP/1.1',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: resource,
      stage: STAGE,
      // What the handlers read of the caller's identity.
      identity: { sourceIp },
    }) as APIGatewayProxyEvent['requestContext'];

    let authorization: APIGatewayAuthorizerResult;
    try {
      authorization = await options.authorizer(
        {
          ...request,
          type: 'REQUEST',
          methodArn: `arn:aws:execute-api:local:000000000000:local/${STAGE}/${method}${url.pathname}`,
          pathParameters: pathParameters ?? null,
          requestContext: context(null),
        } as APIGatewayRequestAuthorizerEvent,
        localLambdaContext('authorizer', requestId, 10_000),
      );
    } catch (error) {
      if ((error as Error).message === 'Unauthorized') return sendGatewayResponse(res, 'UNAUTHORIZED', requestId);
      console.error('authorizer failed', error);
      return sendGatewayResponse(res, 'AUTHORIZER_FAILURE', requestId);
    }
    const allowed = authorization.policyDocument.Statement.some((s) => 'Effect' in s && s.Effect === 'Allow');
    if (!allowed) return sendGatewayResponse(res, 'ACCESS_DENIED', requestId);

    const verdict = options.usagePlans.admit(authorization.usageIdentifierKey ?? undefined);
    if (verdict !== 'ok') return sendGatewayResponse(res, verdict, requestId);

    const event: APIGatewayProxyEvent = {
      ...request,
      pathParameters: pathParameters ?? (route ? null : { proxy: url.pathname.slice(1) }),
      ...decodeBody(body),
      requestContext: context({ ...(authorization.context ?? {}), principalId: authorization.principalId }),
    };
    let result: APIGatewayProxyResult;
    try {
      result = await (route?.handler ?? options.fallback)(event, localLambdaContext(resource, requestId, 10_000));
    } catch (error) {
      // API Gateway answers a failed invocation with the DEFAULT_5XX gateway response.
      console.error('handler failed', error);
      return sendGatewayResponse(res, 'DEFAULT_5XX', requestId);
    }
    const responseHeaders: Record<string, string | string[]> = { 'x-amzn-RequestId': requestId };
    for (const [k, v] of Object.entries(result.headers ?? {})) responseHeaders[k] = String(v);
    for (const [k, v] of Object.entries(result.multiValueHeaders ?? {})) responseHeaders[k] = v.map(String);
    res.writeHead(result.statusCode, responseHeaders);
    res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
  }

  // Loopback names only; pages need the Bearer key, which no cross-origin page can send here (local/loopback-guard.ts).
  return serveOnLoopback('local API gateway', options.port, handle, {
    guard: { checkOrigin: false },
    fail: (res) => sendGatewayResponse(res, 'DEFAULT_5XX', randomUUID()),
  });
}

function sendGatewayResponse(
  res: ServerResponse,
  type: string,
  requestId: string,
  extraHeaders: Record<string, string> = {},
): void {
  const def = gatewayResponse(type);
  res.writeHead(def.statusCode, { ...def.headers, ...extraHeaders, 'x-amzn-RequestId': requestId });
  res.end(gatewayProblemBody(def, requestId));
}

/** The body as the proxy event carries it: bytes that are not UTF-8 reach the handler unaltered, base64-encoded. */
function decodeBody(bytes: Buffer): { body: string | null; isBase64Encoded: boolean } {
  if (bytes.length === 0) return { body: null, isBase64Encoded: false };
  try {
    return { body: new TextDecoder('utf-8', { fatal: true }).decode(bytes), isBase64Encoded: false };
  } catch {
    return { body: bytes.toString('base64'), isBase64Encoded: true };
  }
}

function match(
  routes: readonly LocalRoute[],
  method: string,
  path: string,
): { route?: LocalRoute; pathParameters?: Record<string, string> } {
  const segments = path.split('/').filter(Boolean);
  // As API Gateway: a path that names a resource without parameters is that resource, whatever
  // the method (/messages/batch is not /messages/{id}); an unserved method there is the fallback's.
  const exact = routes.filter(
    (r) => !r.resource.includes('{') && r.resource.split('/').filter(Boolean).join('/') === segments.join('/'),
  );
  if (exact.length > 0) {
    const route = exact.find((r) => r.method === method);
    return route ? { route } : {};
  }
  for (const route of routes) {
    if (route.method !== method) continue;
    const parts = route.resource.split('/').filter(Boolean);
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const ok = parts.every((part, i) => {
      const segment = segments[i] as string;
      if (part.startsWith('{') && part.endsWith('}')) {
        params[part.slice(1, -1)] = decodePathSegment(segment);
        return true;
      }
      return part === segment;
    });
    if (ok) return { route, ...(Object.keys(params).length ? { pathParameters: params } : {}) };
  }
  return {};
}

/** The request's headers as sent (names as spelled), the last of each name and every one. */
function headersOf(req: IncomingMessage): Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'> {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const [name, value] = [req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string];
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  return { headers, multiValueHeaders };
}
