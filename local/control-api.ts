import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import {
  type ControlApi,
  type ControlResponse,
  MAX_CONTROL_BODY_BYTES,
  type Principal,
  problemResponse,
} from '../lambda/control/control-api.js';
import { listenOnLoopback } from './loopback.js';

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

export function writeAnswer(res: ServerResponse, answer: ControlResponse): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/** Writes a problem document of the control API (the same builder the Lambda entry uses). */
export function writeProblem(
  res: ServerResponse,
  status: number,
  code: string,
  detail: string,
  headers: Record<string, string> = {},
): void {
  writeAnswer(res, problemResponse(randomUUID(), status, code, detail, headers));
}

/** Serves one request through the control API as `principal`: the body, then the answer. */
export async function serveControlRequest(
  api: ControlApi,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  principal: Principal,
  query: Readonly<Record<string, string>> = {},
): Promise<void> {
  const body = await readBody(req);
  if (body === undefined) {
    // The rest of the body is not read: the connection cannot be reused.
    return writeProblem(res, 413, 'payload_too_large', 'The body is too large.', { Connection: 'close' });
  }
  const contentType = req.headers['content-type'];
  writeAnswer(
    res,
    await api.handle({
      method: req.method ?? 'GET',
      path,
      ...(contentType ? { contentType } : {}),
      ...(body.length > 0 ? { body } : {}),
      query,
      principal,
    }),
  );
}

/**
 * The operator's control API (the CLI's `--url` mode): every account, plans and bans.
 * Locally it listens on loopback without authentication; on AWS operators use the CLI with IAM,
 * and owners reach the same routes through the dashboard's API (Cognito) on their own account.
 */
export async function startControlApi(
  api: ControlApi,
  port: number,
): Promise<{ url: string; server: Server; stop(): Promise<void> }> {
  const operator: Principal = { kind: 'operator' };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const query = Object.fromEntries(url.searchParams);
    serveControlRequest(api, req, res, url.pathname, operator, query).catch((error: unknown) => {
      console.error('control API error', error);
      if (!res.headersSent) writeProblem(res, 500, 'internal_error', 'Something went wrong.');
    });
  });
  const listening = await listenOnLoopback(server, port);
  return { url: listening.url, server, stop: listening.stop };
}
