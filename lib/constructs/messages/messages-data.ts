import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { PlatformConfig } from '../../config/index.js';
import { TABLE_KEYS } from '../../../contracts/messages.js';

/** Timeout of the queue worker; the queue's visibility timeout is derived from it. */
export const WORKER_TIMEOUT = Duration.seconds(30);

/** AWS: "set the source queue's visibility timeout to at least six times the timeout [of] your function". */
export const VISIBILITY_TIMEOUT_FACTOR = 6;

/** The tables of the Messages API (names as in `TABLE_KEYS`). */
export interface MessagesTables {
  /** API keys by SHA-256 hash of the secret; GSI `byAccount` lists an account's keys. */
  readonly apiKeys: dynamodb.ITable;
  readonly accounts: dynamodb.ITable;
  /** The limiter: one item per key (and per anonymous IP). */
  readonly rateLimits: dynamodb.ITable;
  readonly messages: dynamodb.ITable;
  readonly idempotency: dynamodb.ITable;
}

export interface MessagesDataProps {
  readonly config: PlatformConfig;
  /** Of the tables and queues (a retained table also gets deletion protection). @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Timeout of the worker; the queue's visibility timeout is 6x this. @default WORKER_TIMEOUT */
  readonly workerTimeout?: Duration;
}

/** The stateful resources of the Messages API: its DynamoDB tables and message queues. */
export class MessagesData extends Construct {
  readonly tables: MessagesTables;
  /** The messages queue (standard, SSE, TLS only) with a redrive to `deadLetterQueue`. */
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  /** The worker timeout the queue's visibility timeout was sized for: the worker must use it. */
  readonly workerTimeout: Duration;

  constructor(scope: Construct, id: string, props: MessagesDataProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.workerTimeout = props.workerTimeout ?? WORKER_TIMEOUT;

    const table = (tableId: string, partitionKey: string, ttl?: string) =>
      platformTable(this, tableId, { partitionKey, ttl, removalPolicy });

    const { apiKeys: keys } = TABLE_KEYS;
    const apiKeys = withIndex(table('ApiKeys', keys.partitionKey), keys.accountIndex);
    // The message log (GET /messages): an account's messages by time, one Query per page.
    const messages = withIndex(
      table('Messages', TABLE_KEYS.messages.partitionKey, TABLE_KEYS.messages.ttl),
      TABLE_KEYS.messages.accountIndex,
    );

    this.tables = {
      apiKeys,
      accounts: table('Accounts', TABLE_KEYS.accounts.partitionKey),
      rateLimits: table('RateLimits', TABLE_KEYS.rateLimits.partitionKey, TABLE_KEYS.rateLimits.ttl),
      messages,
      idempotency: table('Idempotency', TABLE_KEYS.idempotency.partitionKey, TABLE_KEYS.idempotency.ttl),
    };

    [this.queue, this.deadLetterQueue] = queueWithDeadLetter(this, 'Queue', 'DeadLetterQueue', {
      visibilityTimeout: Duration.seconds(this.workerTimeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR),
      maxReceiveCount: props.config.messages.maxReceiveCount,
      removalPolicy,
    });
  }
}

/** A platform table: on demand, point-in-time recovery, AWS-managed KMS, deletion protection when retained. */
export function platformTable(
  scope: Construct,
  id: string,
  props: { partitionKey: string; sortKey?: string; ttl?: string; removalPolicy: RemovalPolicy },
): dynamodb.Table {
  return new dynamodb.Table(scope, id, {
    partitionKey: { name: props.partitionKey, type: dynamodb.AttributeType.STRING },
    ...(props.sortKey ? { sortKey: { name: props.sortKey, type: dynamodb.AttributeType.STRING } } : {}),
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    encryption: dynamodb.TableEncryption.AWS_MANAGED,
    timeToLiveAttribute: props.ttl,
    removalPolicy: props.removalPolicy,
    deletionProtection: props.removalPolicy === RemovalPolicy.RETAIN,
  });
}

/** `table` with a string-keyed index projecting ALL: a page of the index shows whole items without a read per item. */
export function withIndex(table: dynamodb.Table, index: { name: string; partitionKey: string; sortKey: string }) {
  table.addGlobalSecondaryIndex({
    indexName: index.name,
    partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
    projectionType: dynamodb.ProjectionType.ALL,
  });
  return table;
}

/** A queue (SQS-managed SSE, TLS only) redriven to its dead-letter queue, which keeps messages 14 days. */
export function queueWithDeadLetter(
  scope: Construct,
  id: string,
  deadLetterId: string,
  props: { visibilityTimeout: Duration; maxReceiveCount: number; removalPolicy: RemovalPolicy },
): [queue: sqs.Queue, deadLetterQueue: sqs.Queue] {
  const common = { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true, removalPolicy: props.removalPolicy };
  const deadLetterQueue = new sqs.Queue(scope, deadLetterId, { ...common, retentionPeriod: Duration.days(14) });
  const queue = new sqs.Queue(scope, id, {
    ...common,
    visibilityTimeout: props.visibilityTimeout,
    deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
  });
  return [queue, deadLetterQueue];
}
