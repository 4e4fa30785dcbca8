import { createServer, request as forward, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request through the proxy, as the predicate sees it: the AWS JSON target and the parsed body. */
export interface ProxiedRequest {
  /** `X-Amz-Target`, e.g. `DynamoDB_20120810.PutItem`. */
  readonly target: string;
  readonly body: Record<string, unknown>;
}

export interface SlowProxy {
  readonly endpoint: string;
  /** Requests matching it are passed on at once, but their answers are held `holdMs` (the write lands; its caller does not hear). */
  slow(match: ((request: ProxiedRequest) => boolean) | undefined, holdMs?: number): void;
  /** How many answers were held so far. */
  readonly held: number;
  stop(): Promise<void>;
}

/**
 * A loopback HTTP proxy in front of an AWS-protocol emulator (dynalite, fauxqs) that can delay
 * chosen answers: the emulator does the work at once, the client gets the answer late or never
 * (its attempt times out first). What a slow network or an overloaded partition looks like to
 * the request path.
 */
export async function startSlowProxy(target: string): Promise<SlowProxy> {
  const upstream = new URL(target);
  let match: ((request: ProxiedRequest) => boolean) | undefined;
  let holdMs = 0;
  let held = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let slowed = false;
      if (match) {
        try {
          slowed = match({ target: String(req.headers['x-amz-target'] ?? ''), body: JSON.parse(raw.toString() || '{}') });
        } catch {
          slowed = false;
        }
      }
      const out = forward(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (c: Buffer) => body.push(c));
          answer.on('end', () => {
            const send = () => {
              if (res.destroyed) return;
              res.writeHead(answer.statusCode ?? 502, answer.headers as IncomingHttpHeaders).end(Buffer.concat(body));
            };
            if (!slowed) return send();
            held++;
            const timer = setTimeout(() => {
              timers.delete(timer);
              send();
            }, holdMs);
            timers.add(timer);
          });
        },
      );
      out.on('error', () => res.destroy());
      out.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    slow(next, ms = 0) {
      match = next;
      holdMs = ms;
    },
    get held() {
      return held;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
