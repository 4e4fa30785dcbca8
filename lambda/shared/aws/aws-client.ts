import http from 'node:http';
import https from 'node:https';
import { type AwsCredentials, type CredentialsProvider, resolveCredentials } from './credentials.js';
import { DEFAULT_MAX_ATTEMPTS, DEFAULT_RETRY_BASE_MS, retryDelayMs } from './retry.js';
import { signRequest, uriEncode } from './sigv4.js';

export { DEFAULT_MAX_ATTEMPTS, DEFAULT_RETRY_BASE_MS, retryDelayMs } from './retry.js';

/** One `send`, as seen by an observer: all its attempts, from the first byte out to the last byte in. */
export interface AwsCallRecord {
  readonly service: string;
  readonly operation: string;
  /** `performance.now()` at the start and end of the call. */
  readonly startMs: number;
  readonly endMs: number;
  readonly attempts: number;
  readonly ok: boolean;
}

export interface AwsClientConfig {
  /** @default process.env.AWS_REGION (an error if neither is set) */
  readonly region?: string;
  /**
   * e.g. `http://127.0.0.1:4567` for an emulator.
   * @default AWS_ENDPOINT_URL_<SERVICE> or AWS_ENDPOINT_URL as the SDK reads them, else
   * https://<service>.<region>.amazonaws.com (.com.cn in cn-* regions)
   */
  readonly endpoint?: string;
  /** @default the environment variables Lambda sets (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) */
  readonly credentials?: AwsCredentials | CredentialsProvider;
  /** Attempts per call, the first included. @default 3 */
  readonly maxAttempts?: number;
  /** Per attempt, from the request to the end of the response body. @default 5000 */
  readonly requestTimeoutMs?: number;
  /** Base of the exponential backoff (full jitter); throttling waits from twice this. @default 50 */
  readonly retryBaseMs?: number;
  /** Called once per call, after its last attempt. */
  readonly onCall?: (call: AwsCallRecord) => void;
}

export interface AwsRequest {
  readonly operation: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** As it goes on the wire: each segment already percent-encoded. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface AwsResponse {
  readonly statusCode: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly requestId: string | undefined;
}

/** A 2xx answer with the call's metadata (attempts and the backoff waited). */
export interface AwsResult extends AwsResponse {
  readonly metadata: AwsResponseMetadata;
}

export interface AwsResponseMetadata {
  readonly httpStatusCode?: number;
  readonly requestId?: string;
  readonly attempts: number;
  readonly totalRetryDelay: number;
}

/** An error answer of an AWS service, shaped like the SDK's ServiceException. */
export class AwsServiceError extends Error {
  readonly $fault: 'client' | 'server';
  readonly $metadata: AwsResponseMetadata;
  readonly $retryable: boolean;
  /**
   * The error document's other members as sent (e.g. DynamoDB's `Item` of a refused conditional
   * write asked with ReturnValuesOnConditionCheckFailure), for the service's client to decode.
   */
  readonly $details: Readonly<Record<string, unknown>>;

  constructor(options: {
    name: string;
    message: string;
    fault: 'client' | 'server';
    metadata: AwsResponseMetadata;
    retryable: boolean;
    details?: Readonly<Record<string, unknown>>;
  }) {
    super(options.message);
    this.name = options.name;
    this.$fault = options.fault;
    this.$metadata = options.metadata;
    this.$retryable = options.retryable;
    this.$details = options.details ?? {};
  }
}

/** An attempt that got no complete answer in time (name as the SDK's, for isDependencyFailure). */
export class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(message: string) {
    super(message);
    this.name = 'TimeoutError';
  }
}

const RETRYABLE_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ECONNABORTED']);
// LimitExceededException is left out: DynamoDB uses it for control-plane quotas that a retry
// within a request cannot clear (API Gateway's throttling comes with 429 and is retried by status).
const THROTTLING_CODES = new Set([
  'Throttling', 'ThrottlingException', 'ThrottledException', 'ProvisionedThroughputExceededException',
  'RequestLimitExceeded', 'TooManyRequestsException', 'RequestThrottled', 'RequestThrottledException',
  'RequestThrottledExceeded', 'SlowDown', 'BandwidthLimitExceeded', 'TransactionInProgressException',
]);
const TRANSIENT_CODES = new Set(['RequestTimeout', 'RequestTimeoutException', 'InternalServerError', 'ServiceUnavailable']);
const CLOCK_SKEW_CODES = new Set(['RequestTimeTooSkewed', 'RequestExpired', 'InvalidSignatureException', 'SignatureDoesNotMatch']);
const USER_AGENT = 'messages-platform-aws/1';

/** `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` → `ConditionalCheckFailedException`. */
export function shortErrorType(type: string): string {
  return (type.split(':')[0] as string).split('#').pop()?.trim() ?? type;
}

function header(headers: http.IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A name for an answer that names no error type (a proxy's or load balancer's page). */
function statusErrorName(status: number): string {
  if (status === 503) return 'ServiceUnavailable';
  if (status === 429) return 'TooManyRequestsException';
  return status >= 500 ? 'InternalFailure' : `Http${status}Error`;
}

/** Parses the error of a JSON or REST-JSON service from its status, headers and body. */
export function parseServiceError(
  response: AwsResponse,
  metadata: Omit<AwsResponseMetadata, 'httpStatusCode' | 'requestId'>,
): AwsServiceError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = response.body ? JSON.parse(response.body) : {};
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's HTML page): the status and headers still classify it.
  }
  // SQS (JSON with query compatibility) names the legacy code in a header: "AWS.SimpleQueueService.NonExistentQueue;Sender".
  const queryError = header(response.headers, 'x-amzn-query-error')?.split(';')[0]?.replace(/^AWS\.SimpleQueueService\./, '');
  const type =
    (typeof body.__type === 'string' && body.__type) ||
    header(response.headers, 'x-amzn-errortype') ||
    (typeof body.code === 'string' && body.code) ||
    (typeof body.Code === 'string' && body.Code) ||
    queryError ||
    statusErrorName(response.statusCode);
  const name = shortErrorType(type);
  const rawMessage = body.message ?? body.Message ?? body.errorMessage;
  const message = typeof rawMessage === 'string' && rawMessage ? rawMessage : `${name} (HTTP ${response.statusCode})`;
  const throttled = THROTTLING_CODES.has(name) || (queryError !== undefined && THROTTLING_CODES.has(queryError));
  const retryable =
    throttled || response.statusCode === 429 || response.statusCode >= 500 || TRANSIENT_CODES.has(name);
  return new AwsServiceError({
    name,
    message,
    fault: response.statusCode >= 500 ? 'server' : 'client',
    metadata: { httpStatusCode: response.statusCode, requestId: response.requestId, ...metadata },
    retryable,
    details: body,
  });
}

// A retryable client fault is throttling (429 or a throttling code): it backs off from a longer base.
const isThrottling = (error: AwsServiceError) => error.$retryable && error.$fault === 'client';

/** The endpoint a service answers on in a region, for services named like their host prefix. */
export function defaultEndpoint(endpointPrefix: string, region: string): string {
  return `https://${endpointPrefix}.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
}

// The SDK's names for the services' endpoint variables (AWS_ENDPOINT_URL_<id>).
const ENDPOINT_ENV_IDS: Readonly<Record<string, string>> = { dynamodb: 'DYNAMODB', sqs: 'SQS', apigateway: 'API_GATEWAY' };

/** An endpoint set in the environment, as the SDK reads it (operators point tools at emulators this way). */
function configuredEndpoint(service: string): string | undefined {
  const id = ENDPOINT_ENV_IDS[service] ?? service.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  return process.env[`AWS_ENDPOINT_URL_${id}`] || process.env.AWS_ENDPOINT_URL || undefined;
}

export function resolveRegion(region: string | undefined): string {
  const resolved = region ?? process.env.AWS_REGION;
  if (!resolved) throw new Error('no AWS region: set AWS_REGION or pass region in the client config');
  return resolved;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Signed JSON requests to one AWS service: SigV4, keep-alive connections, retries with
 * exponential backoff and full jitter, SDK-shaped errors. Every failure it throws carries
 * `$metadata` (service answers, and network errors and timeouts after the last attempt).
 */
export class AwsClient {
  readonly region: string;
  readonly endpoint: URL;
  private readonly credentials: CredentialsProvider;
  private readonly maxAttempts: number;
  private readonly requestTimeoutMs: number;
  private readonly retryBaseMs: number;
  private readonly onCall: AwsClientConfig['onCall'];
  // Its own pool: connections outlive invocations (clients are module-scoped), and destroy() closes only this client's.
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;
  private readonly basePath: string;
  private clockOffsetMs = 0;

  constructor(
    /** The SigV4 signing name, e.g. `dynamodb`, `sqs`, `apigateway`. */
    readonly service: string,
    config: AwsClientConfig = {},
  ) {
    this.region = resolveRegion(config.region);
    this.endpoint = new URL(config.endpoint ?? configuredEndpoint(service) ?? defaultEndpoint(service, this.region));
    if (this.endpoint.protocol !== 'http:' && this.endpoint.protocol !== 'https:') {
      throw new Error(`unsupported endpoint protocol: ${config.endpoint}`);
    }
    this.basePath = this.endpoint.pathname.replace(/\/$/, '');
    this.credentials = resolveCredentials(config.credentials);
    this.maxAttempts = Math.max(1, config.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    this.requestTimeoutMs = config.requestTimeoutMs ?? 5_000;
    this.retryBaseMs = config.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
    this.onCall = config.onCall;
    this.transport = this.endpoint.protocol === 'https:' ? https : http;
    const agentOptions = { keepAlive: true, keepAliveMsecs: 1_000, maxSockets: 50, scheduling: 'lifo' as const };
    this.agent = this.transport === https ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  }

  /** Sends with retries; resolves with a 2xx response, rejects with AwsServiceError or the last network error. */
  async request(request: AwsRequest): Promise<AwsResult> {
    const startMs = performance.now();
    let attempts = 0;
    let totalRetryDelay = 0;
    let ok = false;
    try {
      // Outside the retries: a missing credential is a configuration error, not a dependency failure.
      const credentials = await this.credentials();
      for (;;) {
        attempts++;
        let failure: unknown;
        let retryable: boolean;
        let throttled = false;
        try {
          const response = await this.attempt(request, credentials);
          if (response.statusCode >= 200 && response.statusCode < 300) {
            ok = true;
            const { statusCode: httpStatusCode, requestId } = response;
            return { ...response, metadata: { httpStatusCode, requestId, attempts, totalRetryDelay } };
          }
          const error = parseServiceError(response, { attempts, totalRetryDelay });
          failure = error;
          retryable = error.$retryable;
          throttled = isThrottling(error);
          if (!retryable && this.correctClockSkew(error, response)) retryable = true;
        } catch (error) {
          failure = error;
          const code = (error as { code?: unknown }).code;
          retryable = error instanceof TimeoutError || (typeof code === 'string' && RETRYABLE_NETWORK_CODES.has(code));
        }
        if (!retryable || attempts >= this.maxAttempts) throw withMetadata(failure, attempts, totalRetryDelay);
        const delay = retryDelayMs(attempts, throttled, this.retryBaseMs);
        totalRetryDelay += delay;
        await sleep(delay);
      }
    } finally {
      const { service, onCall } = this;
      onCall?.({ service, operation: request.operation, startMs, endMs: performance.now(), attempts, ok });
    }
  }

  /** A call on the AWS JSON 1.0 protocol (`POST /` naming the operation in X-Amz-Target), as DynamoDB and SQS take them. */
  postJson(
    operation: string,
    targetPrefix: string,
    body: unknown,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<AwsResult> {
    return this.request({
      operation,
      method: 'POST',
      path: '/',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `${targetPrefix}.${operation}`,
        ...headers,
      },
      body: JSON.stringify(body),
    });
  }

  /** Closes this client's connections; requests made afterwards open new ones. */
  destroy(): void {
    this.agent.destroy();
  }

  /** A signature error with the server's clock far from ours: sign with its time from now on. */
  private correctClockSkew(error: AwsServiceError, response: AwsResponse): boolean {
    if (!CLOCK_SKEW_CODES.has(error.name)) return false;
    const serverTime = Date.parse(header(response.headers, 'date') ?? '');
    if (Number.isNaN(serverTime)) return false;
    const offset = serverTime - Date.now();
    if (Math.abs(offset - this.clockOffsetMs) < 5 * 60_000) return false;
    this.clockOffsetMs = offset;
    return true;
  }

  private attempt(request: AwsRequest, credentials: AwsCredentials): Promise<AwsResponse> {
    const path = `${this.basePath}${request.path}`;
    const headers: Record<string, string> = { host: this.endpoint.host, ...request.headers };
    if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
    const signed = signRequest(
      { method: request.method, path, query: request.query, headers, body: request.body },
      { credentials, region: this.region, service: this.service, date: Date.now() + this.clockOffsetMs },
    );
    Object.assign(headers, signed);
    headers['user-agent'] = USER_AGENT;
    const search = request.query
      ? Object.entries(request.query).map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`).join('&')
      : '';
    return new Promise<AwsResponse>((resolve, reject) => {
      let settled = false;
      const settle = (error: Error | undefined, response?: AwsResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(response as AwsResponse);
      };
      const req = this.transport.request(
        {
          protocol: this.endpoint.protocol,
          hostname: this.endpoint.hostname,
          port: this.endpoint.port || undefined,
          method: request.method,
          path: search ? `${path}?${search}` : path,
          headers,
          agent: this.agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error) => settle(error));
          res.on('aborted', () => settle(Object.assign(new Error('response aborted'), { code: 'ECONNRESET' })));
          res.on('end', () =>
            settle(undefined, {
              statusCode: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8'),
              requestId: header(res.headers, 'x-amzn-requestid') ?? header(res.headers, 'x-amz-request-id'),
            }),
          );
        },
      );
      const timer = setTimeout(() => {
        settle(new TimeoutError(`${this.service} ${request.operation}: no answer within ${this.requestTimeoutMs} ms`));
        // The socket may be mid-response: never reuse it.
        req.destroy();
      }, this.requestTimeoutMs);
      req.on('error', (error) => settle(error));
      req.end(request.body);
    });
  }
}

/** The JSON object of a 2xx answer (empty: `{}`); an answer that is not one is a server fault. */
export function jsonBody(response: AwsResult, what: string): Record<string, unknown> {
  try {
    const parsed: unknown = response.body ? JSON.parse(response.body) : {};
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Answered below.
  }
  throw new AwsServiceError({
    name: 'DeserializationError',
    message: `${what}: the answer is not a JSON object`,
    fault: 'server',
    metadata: response.metadata,
    retryable: false,
  });
}

/** Network errors keep their identity and `code`; the call's attempts are added as the SDK does. */
function withMetadata(error: unknown, attempts: number, totalRetryDelay: number): unknown {
  if (error instanceof AwsServiceError) return error;
  if (error instanceof Error && !('$metadata' in error)) {
    Object.defineProperty(error, '$metadata', { value: { attempts, totalRetryDelay }, enumerable: false, configurable: true });
  }
  return error;
}
