import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What the receiver answers to the nth delivery (0-based): a status, or `hang` (no answer at all). */
export type Responder = (index: number, delivery: ReceivedDelivery) => number | 'hang';

export interface WebhookReceiver {
  readonly url: string;
  readonly received: readonly ReceivedDelivery[];
  respond: Responder;
  /** Resolves once `count` deliveries have arrived (event-driven, no polling). */
  until(count: number, timeoutMs?: number): Promise<readonly ReceivedDelivery[]>;
  stop(): Promise<void>;
}

/** A customer's webhook endpoint on loopback: records every delivery and answers as told. */
export async function startWebhookReceiver(respond: Responder = () => 204): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const receiver: WebhookReceiver = {
    url: '',
    received,
    respond,
    until: (count, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        if (received.length >= count) return resolve(received);
        const timer = setTimeout(
          () => reject(new Error(`${received.length} of ${count} deliveries within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      }),
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const delivery = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const index = received.length;
      received.push(delivery);
      for (const waiter of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      const answer = receiver.respond(index, delivery);
      if (answer === 'hang') return;
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, { url: `http://127.0.0.1:${port}/hooks` });
}
