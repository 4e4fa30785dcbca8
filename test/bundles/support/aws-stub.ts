import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listenOnLoopback } from '../../../local/loopback.js';

/** One request a bundle sent to an AWS service that has no emulator here, as it came over the wire. */
export interface StubRequest {
  /** The signing name of its credential scope (`cloudfront`, `acm`, `cloudfront-keyvaluestore`, `states`, ...). */
  readonly service: string;
  /** The Authorization header's algorithm as the SDK sent it: SigV4 (HMAC) or `AWS4-ECDSA-P256-SHA256` (SigV4A). */
  readonly algorithm: string;
  readonly accessKeyId: string;
  /** The scope's region (SigV4), or the X-Amz-Region-Set header (SigV4A). */
  readonly region: string;
  readonly method: string;
  /** The path as sent (percent-encoded), without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** The answer to give, in the service's own wire format (see aws-wire.ts). */
export interface StubReply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

// Read, never verified: the stub records what the SDK's signers produced (any HMAC variant of SigV4).
const SIGV4 = /^(AWS4-HMAC-[A-Z0-9]+) Credential=([^/]+)\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request,/;
const SIGV4A = /^(AWS4-ECDSA-P256-SHA256) Credential=([^/]+)\/\d{8}\/([^/]+)\/aws4_request,/;

/**
 * A local HTTP peer for the AWS services without an emulator (CloudFront, ACM, the KeyValueStore,
 * Step Functions, API Gateway, S3). It knows nothing of those services: each test queues the
 * answers, in the service's wire format, that the calls it expects should get, and reads back the
 * requests the bundle built. A call with no queued answer is recorded as unexpected and answered
 * 501, so a bundle that calls more than the test expects fails with the call named.
 */
export class AwsWireStub {
  readonly requests: StubRequest[] = [];
  readonly unexpected: StubRequest[] = [];
  private readonly queues = new Map<string, StubReply[]>();

  private constructor(
    /** `http://127.0.0.1:<port>`, for every service but the KeyValueStore. */
    readonly url: string,
    readonly port: number,
    private readonly close: () => Promise<void>,
  ) {}

  /**
   * The KeyValueStore client puts the store's account id in front of the endpoint's host, so it
   * needs a name to put it in front of: `<account>.localhost` (bootstrap.mjs resolves it to loopback).
   */
  get hostUrl(): string {
    return `http://localhost:${this.port}`;
  }

  static async start(): Promise<AwsWireStub> {
    const holder: { stub?: AwsWireStub } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const reply = holder.stub?.answer(req.method ?? 'GET', req.url ?? '/', req.headers, Buffer.concat(chunks).toString('utf8'));
        res.writeHead(reply?.status ?? 500, { 'x-amzn-RequestId': 'bundle-stage-stub', ...reply?.headers });
        res.end(reply?.body ?? '');
      });
    });
    const listening = await listenOnLoopback(server, 0);
    const port = Number(new URL(listening.url).port);
    holder.stub = new AwsWireStub(listening.url, port, listening.stop);
    return holder.stub;
  }

  /** Queues answers for the next calls to `service` (its signing name), in order. */
  reply(service: string, ...replies: StubReply[]): void {
    this.queues.set(service, [...(this.queues.get(service) ?? []), ...replies]);
  }

  /** The requests to `service` so far, removed from the record (each test reads its own). */
  take(service: string): StubRequest[] {
    const taken = this.requests.filter((r) => r.service === service);
    this.requests.splice(0, this.requests.length, ...this.requests.filter((r) => r.service !== service));
    return taken;
  }

  /** Answers queued but never asked for: the bundle made fewer calls than the test expected. */
  pending(): Record<string, number> {
    return Object.fromEntries([...this.queues].filter(([, q]) => q.length > 0).map(([s, q]) => [s, q.length]));
  }

  /**
   * Ends a test: what went wrong with the calls (unexpected ones, answers never asked for), and a
   * clean slate so one test's leftovers cannot answer the next one's calls.
   */
  reset(): { unexpected: string[]; pending: Record<string, number> } {
    const left = { unexpected: this.unexpected.map((r) => `${r.service} ${r.method} ${r.path}`), pending: this.pending() };
    this.requests.length = 0;
    this.unexpected.length = 0;
    this.queues.clear();
    return left;
  }

  stop(): Promise<void> {
    return this.close();
  }

  private answer(method: string, rawUrl: string, headers: IncomingHttpHeaders, body: string): StubReply {
    const url = new URL(rawUrl, 'http://stub');
    const authorization = String(headers.authorization ?? '');
    const v4 = SIGV4.exec(authorization);
    const v4a = SIGV4A.exec(authorization);
    const request: StubRequest = {
      service: v4?.[4] ?? v4a?.[3] ?? 'unsigned',
      algorithm: v4?.[1] ?? v4a?.[1] ?? '',
      accessKeyId: v4?.[2] ?? v4a?.[2] ?? '',
      region: v4?.[3] ?? String(headers['x-amz-region-set'] ?? ''),
      method,
      path: rawUrl.split('?')[0] ?? '/',
      query: url.searchParams,
      headers,
      body,
    };
    const reply = this.queues.get(request.service)?.shift();
    if (!reply) {
      this.unexpected.push(request);
      const text = `the bundle stage has no stubbed answer for ${request.service} ${method} ${request.path}`;
      return { status: 501, headers: { 'content-type': 'text/plain' }, body: text };
    }
    this.requests.push(request);
    return reply;
  }
}
