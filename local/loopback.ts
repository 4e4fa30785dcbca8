import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { refuse } from '../lambda/shared/problem.js';
import { guardLoopback, type LoopbackGuardOptions, writeProblem } from './loopback-guard.js';

export type LocalHandler<E, R> = (event: E, context: Context) => Promise<R>;
export type ProxyHandler = LocalHandler<APIGatewayProxyEvent, APIGatewayProxyResult>;

/** Listens on 127.0.0.1 only (never another interface); returns the URL and a stop that drops open connections. */
export async function listenOnLoopback(server: Server, port: number): Promise<{ url: string; stop(): Promise<void> }> {
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A server on 127.0.0.1 behind the loopback guard (unless false); `fail` answers a request that throws. */
export async function serveOnLoopback(
  name: string,
  port: number,
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  options: { guard: LoopbackGuardOptions | false; fail?(res: ServerResponse): void },
): Promise<{ url: string; stop(): Promise<void> }> {
  const fail = options.fail ?? ((res) => writeProblem(res, refuse('internal_error', 'Something went wrong.', 500)));
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      console.error(`${name} error`, error);
      if (res.headersSent) res.destroy();
      else fail(res);
    });
  };
  return listenOnLoopback(createServer(options.guard ? guardLoopback(listener, options.guard) : listener), port);
}

/** A request's body, or undefined when it is larger than `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The Lambda context the local platform passes to a handler invocation. */
export function localLambdaContext(functionName: string, requestId: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  const name = `local-${functionName.replace(/[^A-Za-z0-9-]/g, '')}`;
  return {
    awsRequestId: requestId,
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    logGroupName: '/local',
    logStreamName: 'local',
    memoryLimitInMB: '512',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
