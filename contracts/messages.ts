/**
 * The contract between the constructs and the Lambda handlers of the Messages API: where each
 * handler lives and which environment variables it reads. The local platform sets the same
 * variables, so one handler module runs in both places.
 */
export const HANDLER_ENTRIES = {
  authorizer: 'lambda/keys/authorizer.ts',
  sendMessage: 'lambda/messages/send-handler.ts',
  getMessage: 'lambda/messages/get-handler.ts',
  fallback: 'lambda/messages/fallback-handler.ts',
  worker: 'lambda/messages/worker-handler.ts',
} as const;

/**
 * The worker's SQS event source: up to 100 messages per invocation, gathered for at most 1 s
 * (a batch size above 10 needs a batching window of at least 1 s). 100 rather than SQS's 10: the
 * worker's per-batch costs (its invocation, its trace, the usage-history write) fall tenfold per
 * message (bench/README.md, "cost-per-million"), its records are processed in parallel, and
 * Lambda cuts a batch short at the 6 MB invocation payload. The local platform's poller gathers
 * the same batches.
 */
export const WORKER_EVENT_SOURCE = { batchSize: 100, maxBatchingWindowSeconds: 1 } as const;

/**
 * The import the worker reads the operator's processor through (lambda/messages/worker-handler.ts).
 * The worker's bundling aliases it to the module named in the config (`processor`); tsconfig.json
 * maps it to processors/default.ts for type checking.
 */
export const PROCESSOR_IMPORT = '@platform/processor';

/**
 * The wait before the next attempt after the n-th failed one: min(max, base x 2^(n-1)) seconds,
 * set with ChangeMessageVisibility on the failed record (at most 12 hours in SQS). With the default
 * maxReceiveCount of 5: 30 s, 60 s, 120 s, 240 s, then the DLQ. docs/processor.md publishes it.
 */
export const RETRY_BACKOFF = { baseSeconds: 30, maxSeconds: 900 } as const;
export type RetryBackoff = { readonly baseSeconds: number; readonly maxSeconds: number };

export function retryDelaySeconds(failedAttempts: number, backoff: RetryBackoff = RETRY_BACKOFF): number {
  const exponent = Math.max(0, Math.min(failedAttempts - 1, 30));
  return Math.min(backoff.maxSeconds, 43_200, backoff.baseSeconds * 2 ** exponent);
}

export const ENV = {
  apiKeysTable: 'API_KEYS_TABLE',
  rateLimitsTable: 'RATE_LIMITS_TABLE',
  messagesTable: 'MESSAGES_TABLE',
  idempotencyTable: 'IDEMPOTENCY_TABLE',
  queueUrl: 'QUEUE_URL',
  /** JSON: the `plans` and `anonymous` parts of the platform config. */
  limitsConfig: 'LIMITS_CONFIG',
  /** JSON: the `messages` part of the platform config. */
  messagesConfig: 'MESSAGES_CONFIG',
  /**
   * JSON: { [usageIdentifier: string]: value }, the value of the pooled internal API Gateway key of
   * each plan plus "anonymous" (internal identifiers, not secrets: see MessagesApi).
   */
  pooledUsageKeys: 'POOLED_USAGE_KEYS',
  keyCacheSeconds: 'KEY_CACHE_SECONDS',
} as const;

/** Table key attribute names (all string partition keys, no sort keys; indexes named with theirs). */
export const TABLE_KEYS = {
  apiKeys: {
    partitionKey: 'keyHash',
    accountIndex: { name: 'byAccount', partitionKey: 'accountId', sortKey: 'keyId' },
  },
  accounts: { partitionKey: 'accountId' },
  rateLimits: { partitionKey: 'id', ttl: 'expiresAt' },
  /** `byAccount`: an account's messages by time, the message log (`GET /messages`), one Query per page. */
  messages: {
    partitionKey: 'id',
    ttl: 'expiresAt',
    accountIndex: { name: 'byAccount', partitionKey: 'accountId', sortKey: 'createdAt' },
  },
  idempotency: { partitionKey: 'id', ttl: 'expiresAt' },
} as const;

/**
 * The public shapes the messages capability shares with the webhooks capability: the message as
 * clients see it, and the port the worker tells outcomes through. Here, not in lambda/messages,
 * so that webhooks implements the port without importing messages (which composes webhooks in
 * its worker): no cycle between capabilities (test/lambda/dependency-cycles.test.ts).
 */

/** A JSON value: what a processor may return (kept on the record as `result`). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Lifecycle of a message: queued → processed, or failed (a PermanentError, or dead-lettered). */
export type MessageStatus = 'queued' | 'processed' | 'failed';

/** The public JSON of a message (openapi/openapi.yaml, "Message"): `GET /messages/{id}`, the log, webhooks. */
export interface MessageResource {
  readonly id: string;
  readonly message: string;
  readonly status: MessageStatus;
  readonly createdAt: string;
  readonly attempts: number;
  readonly processedAt?: string;
  readonly failedAt?: string;
  readonly result?: JsonValue;
  readonly lastError?: string;
}

export type MessageOutcomeType = 'message.processed' | 'message.failed';
/**
 * Told of each final outcome after its transition commits, and again whenever a redelivery finds
 * the record final (receivers dedupe). A rejection fails that SQS record: it is retried, the
 * processor is not run again. The webhooks capability implements it.
 */
export interface MessageOutcomes {
  notify(type: MessageOutcomeType, message: MessageResource): Promise<void>;
}
