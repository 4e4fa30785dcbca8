import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbIdempotencyStore } from '../../lambda/messages/dynamodb-idempotency-store.js';
import { DynamoDbMessageStore } from '../../lambda/messages/dynamodb-message-store.js';
import {
  createFallbackHandler,
  createGetMessageHandler,
  createSendRoutesHandler,
} from '../../lambda/messages/http-handlers.js';
import type { MessageRecord } from '../../lambda/messages/message.js';
import { SqsMessageQueue } from '../../lambda/messages/sqs-message-queue.js';
import type { MessageOutcomes } from '../../lambda/messages/ports.js';
import type { ProcessMessage } from '../../lambda/messages/processor.js';
import { SqsMessageRetries } from '../../lambda/messages/sqs-message-retries.js';
import { createWorkerHandler } from '../../lambda/messages/worker.js';
import type { RetryBackoff } from '../../contracts/messages.js';
import { RateLimiter } from '../../lambda/rate-limits/rate-limiter.js';
import type { Clock } from '../../lambda/shared/clock.js';
import type { PlatformConfig } from '../../lib/config/index.js';
import { startLocalApiGateway } from '../api-gateway.js';
import { LOCAL_TABLE_NAMES, type RunningService } from '../emulators.js';
import { LocalFirewall } from '../firewall.js';
import { QueuePoller } from '../queue-poller.js';
import type { BackingServices } from './backing-services.js';
import type { wireKeys } from './keys.js';

export interface MessagesWiringOptions {
  readonly backing: BackingServices;
  readonly keys: Pick<ReturnType<typeof wireKeys>, 'limiterStore' | 'usageHistoryStore' | 'authorizer' | 'usagePlans'>;
  readonly clock: Clock;
  readonly config: PlatformConfig;
  /** API port on 127.0.0.1; 0 picks a free one. */
  readonly port: number;
  /** Run the queue worker. */
  readonly worker: boolean;
  /** The operator's processor the worker runs (local/processor-module.ts loads one from a file). @default accepts every message */
  readonly processor?: ProcessMessage;
  /** The wait between attempts. */
  readonly retryBackoff: RetryBackoff;
  /** Told of every final outcome (webhooks). @default nobody */
  readonly outcomes?: MessageOutcomes;
}

/**
 * The Messages API: the API Gateway front (firewall → authorizer → usage plans → the send, get and
 * fallback handlers) and the queue worker polling SQS, as the event source mapping does on AWS.
 * Each server is added to `services` as soon as it runs.
 */
export async function startMessages(options: MessagesWiringOptions, services: RunningService[]) {
  const { backing, keys, clock, config } = options;
  const { documentClient, queues, sqsClient } = backing;
  const limiter = new RateLimiter(keys.limiterStore, clock);
  const messages = new DynamoDbMessageStore(documentClient, LOCAL_TABLE_NAMES.messages);
  const queue = new SqsMessageQueue(backing.queueClient, queues.queueUrl);

  const send = createSendRoutesHandler({
    limiter,
    messages,
    queue,
    idempotency: new DynamoDbIdempotencyStore(documentClient, LOCAL_TABLE_NAMES.idempotency),
    clock,
    config: config.messages,
    anonymousLimits: config.anonymous,
  });
  const read = createGetMessageHandler({ limiter, messages, anonymousLimits: config.anonymous });
  const api = await startLocalApiGateway({
    port: options.port,
    authorizer: keys.authorizer,
    usagePlans: keys.usagePlans,
    firewall: new LocalFirewall(config.protection.waf, clock),
    routes: [
      // One send function for both POST routes, as on AWS.
      ...['/messages', '/messages/batch'].map((resource) => ({ method: 'POST', resource, handler: send })),
      // One read function for both GET routes, as on AWS.
      ...['/messages/{id}', '/messages'].map((resource) => ({ method: 'GET', resource, handler: read })),
    ],
    fallback: createFallbackHandler({ limiter, anonymousLimits: config.anonymous }),
  });
  services.push({ endpoint: api.url, stop: api.stop });

  let worker: QueuePoller | undefined;
  if (options.worker) {
    const queueArn = (
      await sqsClient.send(new GetQueueAttributesCommand({ QueueUrl: queues.queueUrl, AttributeNames: ['QueueArn'] }))
    ).Attributes?.QueueArn as string;
    worker = new QueuePoller(
      sqsClient,
      queues.queueUrl,
      queueArn,
      createWorkerHandler({
        messages,
        clock,
        maxReceiveCount: config.messages.maxReceiveCount,
        usageHistory: keys.usageHistoryStore,
        processor: options.processor,
        retries: new SqsMessageRetries(backing.queueClient, queues.queueUrl),
        backoff: options.retryBackoff,
        outcomes: options.outcomes,
      }),
    );
    worker.start();
    const poller = worker;
    services.push({ endpoint: 'worker', stop: () => poller.stop() });
  }

  return {
    api,
    worker,
    /** With --data: the queue is in memory, so the envelopes of messages still queued are put back. */
    requeueStranded: () => requeueStranded(documentClient, queue),
    redriveDeadLetters: () => redrive(sqsClient, queues.deadLetterQueueUrl, queues.queueUrl),
  };
}

async function requeueStranded(client: DynamoDBDocumentClient, queue: SqsMessageQueue): Promise<void> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: LOCAL_TABLE_NAMES.messages,
        FilterExpression: '#status = :queued',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':queued': 'queued' },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of (page.Items ?? []) as MessageRecord[]) {
      await queue.send({ v: 1, id: item.id, accountId: item.accountId, createdAt: item.createdAt });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Receive from the DLQ, send to the queue (same body and attributes), delete from the DLQ, until empty. */
async function redrive(sqs: SQSClient, from: string, to: string): Promise<number> {
  let moved = 0;
  for (;;) {
    const { Messages: messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: from,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 30,
        MessageAttributeNames: ['All'],
      }),
    );
    if (messages.length === 0) return moved;
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: to,
        Entries: messages.map((m, i) => ({
          Id: String(i),
          MessageBody: m.Body ?? '',
          ...(m.MessageAttributes ? { MessageAttributes: m.MessageAttributes } : {}),
        })),
      }),
    );
    // Only what reached the queue leaves the DLQ; a failed entry stays for the next pass.
    const ok = new Set((sent.Successful ?? []).map((e) => e.Id));
    const done = messages.filter((_, i) => ok.has(String(i)));
    if (done.length > 0) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: from,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle as string })),
        }),
      );
    }
    moved += done.length;
    if (done.length < messages.length) throw new Error(`redrive: ${messages.length - done.length} messages not sent`);
  }
}
