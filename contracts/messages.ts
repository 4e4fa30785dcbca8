/** Where each handler of the Messages API lives and what it reads, for the constructs and the local platform. */
export const HANDLER_ENTRIES = {
  authorizer: 'lambda/keys/authorizer.ts',
  sendMessage: 'lambda/messages/send-handler.ts',
  getMessage: 'lambda/messages/get-handler.ts',
  fallback: 'lambda/messages/fallback-handler.ts',
  worker: 'lambda/messages/worker-handler.ts',
} as const;

/**
 * The worker's SQS event source: up to 100 messages per invocation (a batch above 10 needs a 1 s
 * window), so the per-batch costs fall tenfold per message (bench/README.md, "cost-per-million").
 */
export const WORKER_EVENT_SOURCE = { batchSize: 100, maxBatchingWindowSeconds: 1 } as const;

/** The worker's import of the operator's processor: bundling aliases it to config `processor`, tsconfig to the default. */
export const PROCESSOR_IMPORT = '@platform/processor';

/** The wait after the n-th failed attempt: min(max, base x 2^(n-1)) s, at most SQS's 12 h (docs/processor.md). */
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
  /** JSON: the pooled internal API Gateway keys' values by usage identifier (not secrets: pooled-usage-keys.ts). */
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

// The shapes messages shares with webhooks, here so that webhooks does not import messages (no cycle).

/** A JSON value: what a processor may return (kept on the record as `result`). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Lifecycle of a message: queued → processed, or failed (a PermanentError, or dead-lettered). */
export type MessageStatus = 'queued' | 'processed' | 'failed';

/** The public JSON of a message (openapi/openapi.yaml, "Message"). */
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
/** Told of each final outcome, again on a redelivery that finds it final; a rejection retries the SQS record. */
export interface MessageOutcomes {
  notify(type: MessageOutcomeType, message: MessageResource): Promise<void>;
}
