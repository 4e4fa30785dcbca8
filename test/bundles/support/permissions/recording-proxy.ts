import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { listenOnLoopback } from '../../../../local/loopback.js';
import type { WireRequest } from './aws-call.js';

// One function's way to AWS in the bundle stage: every AWS_ENDPOINT_URL_* of its process points
// here, and each request is recorded (service and region from its SigV4 credential scope) and then
// forwarded unchanged to the peer that plays the service: dynalite, fauxqs, or the wire stub.

const SIGV4 = /^AWS4-HMAC-[A-Z0-9]+ Credential=[^/]+\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request,/;
const SIGV4A = /^AWS4-ECDSA-P256-SHA256 Credential=[^/]+\/\d{8}\/([^/]+)\/aws4_request,/;

export interface Upstreams {
  readonly dynamodb: string;
  readonly sqs: string;
  /** Every other service (the wire stub). */
  readonly stub: string;
  /** The origin of the queue URLs the function was given this proxy's origin for, restored before fauxqs reads them. */
  readonly queueOrigin?: string;
}

export interface RecordingProxy {
  readonly url: string;
  /** For the KeyValueStore client, which puts the account id in front of the host (`<account>.localhost`). */
  readonly hostUrl: string;
  stop(): Promise<void>;
}

function wireRequestOf(method: string, rawUrl: string, headers: IncomingHttpHeaders, body: string): WireRequest {
  const authorization = String(headers.authorization ?? '');
  const v4 = SIGV4.exec(authorization);
  const v4a = SIGV4A.exec(authorization);
  const url = new URL(rawUrl, 'http://proxy');
  return {
    service: v4?.[2] ?? v4a?.[1] ?? 'unsigned',
    region: v4?.[1] ?? String(headers['x-amz-region-set'] ?? ''),
    method,
    path: rawUrl.split('?')[0] ?? '/',
    query: url.searchParams,
    target: typeof headers['x-amz-target'] === 'string' ? headers['x-amz-target'] : undefined,
    body,
  };
}

export async function startRecordingProxy(
  upstreams: Upstreams,
  record: (request: WireRequest) => void,
): Promise<RecordingProxy> {
  const self = { url: '' };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      const wire = wireRequestOf(req.method ?? 'GET', req.url ?? '/', req.headers, body.toString('utf8'));
      record(wire);
      const upstream = new URL(wire.service === 'dynamodb' ? upstreams.dynamodb : wire.service === 'sqs' ? upstreams.sqs : upstreams.stub);
      // Queue URLs were given with this proxy's origin (SQS sends to the QueueUrl's host): give fauxqs its own back.
      if (wire.service === 'sqs' && upstreams.queueOrigin) body = Buffer.from(wire.body.replaceAll(self.url, upstreams.queueOrigin));
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          // The Host the SDK built (the KeyValueStore's `<account>.localhost`), on the peer's port.
          headers: { ...req.headers, host: `${(req.headers.host ?? upstream.hostname).replace(/:\d+$/, '')}:${upstream.port}`, 'content-length': String(body.length) },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on('error', (error) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`recording proxy: ${wire.service} peer unreachable: ${error.message}`);
      });
      forward.end(body);
    });
  });
  const listening = await listenOnLoopback(server, 0);
  const port = new URL(listening.url).port;
  self.url = listening.url;
  return { url: listening.url, hostUrl: `http://localhost:${port}`, stop: listening.stop };
}
