import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';

/** Listens on 127.0.0.1 only (never another interface); returns the URL and a stop that drops open connections. */
export async function listenOnLoopback(server: Server, port: number): Promise<{ url: string; stop(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
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

/** The Lambda context the local platform passes to a handler invocation. */
export function localLambdaContext(functionName: string, requestId: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    awsRequestId: requestId,
    callbackWaitsForEmptyEventLoop: false,
    functionName: `local-${functionName.replace(/[^A-Za-z0-9-]/g, '')}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:local-${functionName.replace(/[^A-Za-z0-9-]/g, '')}`,
    logGroupName: '/local',
    logStreamName: 'local',
    memoryLimitInMB: '512',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}
