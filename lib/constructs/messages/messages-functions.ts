import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { ENV, HANDLER_ENTRIES, PROCESSOR_IMPORT, TABLE_KEYS, WORKER_EVENT_SOURCE } from '../../../contracts/messages.js';
import type { PlatformConfig } from '../../config/index.js';
import { PlatformFunction, REPO_ROOT } from '../shared/platform-function.js';
import type { MessagesData } from './messages-data.js';

/** The Lambda functions of the Messages API. */
export type MessagesFunctions = ReturnType<typeof createMessagesFunctions>;

export interface MessagesFunctionsProps {
  readonly config: PlatformConfig;
  readonly data: MessagesData;
  /** The operator's processor, relative to the repository root (docs/processor.md). @default config.processor */
  readonly processor?: string;
  /** The worker's environment variables for the processor (e.g. FORWARD_URL). @default - none */
  readonly processorEnvironment?: Readonly<Record<string, string>>;
}

/** Each Messages function with the environment it reads (contracts/messages.ts) and grants on its tables only. */
export function createMessagesFunctions(scope: Construct, props: MessagesFunctionsProps) {
  const { config, data } = props;
  const { tables, queue } = data;
  const limitsConfig = JSON.stringify({ plans: config.plans, anonymous: config.anonymous });
  const messagesConfig = JSON.stringify(config.messages);

  const authorizer = new PlatformFunction(scope, 'Authorizer', {
    entry: HANDLER_ENTRIES.authorizer,
    serviceName: 'messages-authorizer',
    description: 'REQUEST authorizer of the Messages API: API key lookup, always Allow with a usage identifier',
    environment: {
      [ENV.apiKeysTable]: tables.apiKeys.tableName,
      [ENV.limitsConfig]: limitsConfig,
      [ENV.keyCacheSeconds]: String(config.auth.keyCacheSeconds),
    },
  });
  authorizer.allowItems(tables.apiKeys, 'GetItem');

  /** A request handler: the limiter's table and config on top of `environment`. */
  const apiFunction = (id: string, entry: string, description: string, environment: Record<string, string>) => {
    const fn = new PlatformFunction(scope, id, {
      entry,
      serviceName: 'messages-api',
      description,
      environment: {
        [ENV.rateLimitsTable]: tables.rateLimits.tableName,
        ...environment,
        [ENV.limitsConfig]: limitsConfig,
        [ENV.messagesConfig]: messagesConfig,
      },
    });
    fn.allowItems(tables.rateLimits, 'GetItem', 'PutItem', 'UpdateItem');
    return fn;
  };

  const sendMessage = apiFunction(
    'SendMessage',
    HANDLER_ENTRIES.sendMessage,
    'POST /messages: limiter, validation, idempotency, record, enqueue, 202',
    {
      [ENV.messagesTable]: tables.messages.tableName,
      [ENV.idempotencyTable]: tables.idempotency.tableName,
      [ENV.queueUrl]: queue.queueUrl,
    },
  );
  sendMessage.allowItems(tables.messages, 'GetItem', 'PutItem', 'DeleteItem');
  // A batch's records, and their deletion when the batch is not accepted (POST /messages/batch).
  sendMessage.allow(['dynamodb:BatchWriteItem'], [tables.messages.tableArn]);
  sendMessage.allowItems(tables.idempotency, 'GetItem', 'PutItem', 'DeleteItem');
  // The queue uses SQS-managed SSE (no customer KMS key), so no kms:* is needed.
  sendMessage.allow(['sqs:SendMessage'], [queue.queueArn]);

  const getMessage = apiFunction(
    'GetMessage',
    HANDLER_ENTRIES.getMessage,
    'GET /messages/{id} and GET /messages: limiter, then the caller account\'s message or message log',
    { [ENV.messagesTable]: tables.messages.tableName },
  );
  getMessage.allowItems(tables.messages, 'GetItem');
  // GET /messages: one Query per page on the account index, and nothing else of the index.
  getMessage.allow(['dynamodb:Query'], [`${tables.messages.tableArn}/index/${TABLE_KEYS.messages.accountIndex.name}`]);

  const fallback = apiFunction(
    'Fallback',
    HANDLER_ENTRIES.fallback,
    'Every other method and path: 401/404/405 problems with rate-limit headers',
    {},
  );

  const processor = props.processor ?? config.processor;
  if (!existsSync(join(REPO_ROOT, processor))) {
    throw new Error(`the processor ${processor} does not exist (a path relative to the repository root, see docs/processor.md)`);
  }
  const worker = new PlatformFunction(scope, 'Worker', {
    entry: HANDLER_ENTRIES.worker,
    serviceName: 'messages-worker',
    description: `Queue worker: runs the processor ${processor.slice(0, 200)} with partial batch responses`,
    bundlingAliases: { [PROCESSOR_IMPORT]: `./${processor}` },
    timeout: data.workerTimeout,
    // Kept for the worker during an API flood (0: none); see config protection.reservedConcurrency.
    reservedConcurrentExecutions: config.protection.reservedConcurrency.worker || undefined,
    environment: {
      ...props.processorEnvironment,
      [ENV.messagesTable]: tables.messages.tableName,
      [ENV.messagesConfig]: messagesConfig,
      [ENV.rateLimitsTable]: tables.rateLimits.tableName,
      // The backoff: ChangeMessageVisibility on a failed record (lambda/messages/sqs-message-retries.ts).
      [ENV.queueUrl]: queue.queueUrl,
    },
  });
  worker.allowItems(tables.messages, 'GetItem', 'UpdateItem');
  // The usage history: one ADD per account and day of each batch (lambda/usage-history).
  worker.allowItems(tables.rateLimits, 'UpdateItem');
  // Grants the consumer actions (receive, delete, change visibility, attributes) on this queue only;
  // sqs:ChangeMessageVisibility is also what the worker's backoff calls.
  // With reserved concurrency, the event source's maximum concurrency stays within it: pollers
  // beyond it would be throttled, and a throttled batch returns to the queue and counts a receive
  // towards the dead-letter threshold.
  const workerReserved = config.protection.reservedConcurrency.worker;
  worker.function.addEventSource(
    new SqsEventSource(queue, {
      batchSize: WORKER_EVENT_SOURCE.batchSize,
      maxBatchingWindow: Duration.seconds(WORKER_EVENT_SOURCE.maxBatchingWindowSeconds),
      reportBatchItemFailures: true,
      ...(workerReserved >= 2 ? { maxConcurrency: Math.min(workerReserved, 1000) } : {}),
    }),
  );

  return { authorizer, sendMessage, getMessage, fallback, worker };
}
