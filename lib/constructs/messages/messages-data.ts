import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { PlatformConfig } from '../../config/index.js';
import { TABLE_KEYS } from '../../../contracts/messages.js';

/** Timeout of the queue worker; the queue's visibility timeout is derived from it. */
export const WORKER_TIMEOUT = Duration.seconds(30);

/**
 * AWS: "set the source queue's visibility timeout to at least six times the timeout that you
 * configure on your function", so that a batch is not redelivered while a retry is running.
 */
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

/** What the stateless part of the Messages API needs from the stateful part. */
export interface MessagesDataResources {
  readonly tables: MessagesTables;
  /** The messages queue (standard, SSE, TLS only) with a redrive to `deadLetterQueue`. */
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  /** The worker timeout the queue's visibility timeout was sized for: the worker must use it. */
  readonly workerTimeout: Duration;
}

export interface MessagesDataProps {
  readonly config: PlatformConfig;
  /**
   * Removal policy of the tables and queues. Tables that are retained also get deletion protection.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Timeout of the worker that consumes the queue; the visibility timeout is 6x this.
   * @default WORKER_TIMEOUT (30 seconds)
   */
  readonly workerTimeout?: Duration;
}

/**
 * The stateful resources of the Messages API: the DynamoDB tables (on-demand, point-in-time
 * recovery, AWS-managed KMS encryption, retained) and the message queue with its dead-letter queue.
 */
export class MessagesData extends Construct implements MessagesDataResources {
  readonly tables: MessagesTables;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly workerTimeout: Duration;

  constructor(scope: Construct, id: string, props: MessagesDataProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.workerTimeout = props.workerTimeout ?? WORKER_TIMEOUT;

    const table = (tableId: string, partitionKey: string, ttl?: string) =>
      new dynamodb.Table(this, tableId, {
        partitionKey: { name: partitionKey, type: dynamodb.AttributeType.STRING },
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: dynamodb.TableEncryption.AWS_MANAGED,
        timeToLiveAttribute: ttl,
        removalPolicy,
        deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      });

    const apiKeys = table('ApiKeys', TABLE_KEYS.apiKeys.partitionKey);
    const { accountIndex } = TABLE_KEYS.apiKeys;
    apiKeys.addGlobalSecondaryIndex({
      indexName: accountIndex.name,
      partitionKey: { name: accountIndex.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: accountIndex.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });

    // The message log (GET /messages): an account's messages by time, one Query per page. ALL: a
    // page shows whole messages without a read per item.
    const messages = table('Messages', TABLE_KEYS.messages.partitionKey, TABLE_KEYS.messages.ttl);
    const messageLog = TABLE_KEYS.messages.accountIndex;
    messages.addGlobalSecondaryIndex({
      indexName: messageLog.name,
      partitionKey: { name: messageLog.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: messageLog.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });

    this.tables = {
      apiKeys,
      accounts: table('Accounts', TABLE_KEYS.accounts.partitionKey),
      rateLimits: table('RateLimits', TABLE_KEYS.rateLimits.partitionKey, TABLE_KEYS.rateLimits.ttl),
      messages,
      idempotency: table('Idempotency', TABLE_KEYS.idempotency.partitionKey, TABLE_KEYS.idempotency.ttl),
    };

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy,
    });

    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(this.workerTimeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.config.messages.maxReceiveCount },
      removalPolicy,
    });
  }
}
