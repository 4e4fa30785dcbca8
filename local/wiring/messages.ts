import { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDbIdempotencyStore } from '../../lambda/messages/dynamodb-idempotency-store.js';
import { DynamoDbMessageStore } from '../../lambda/messages/dynamodb-message-store.js';
import {
  createFallbackHandler,
  createGetMessageHandler,
  createSendRoutesHandler,
} from '../../lambda/messages/http-handlers.js';
import type { MessageRecord } from '../../lambda/messages/message.js';
import { SqsMessageQueue } from '../../lambda/messages/sqs-message-queue.js';
import { SqsMessageRetries } from '../../lambda/messages/sqs-message-retries.js';
import { createWorkerHandler } from '../../lambda/messages/worker.js';
import type { MessageOutcomes, RetryBackoff } from '../../contracts/messages.js';
import { RateLimiter } from '../../lambda/rate-limits/rate-limiter.js';
import { startLocalApiGateway } from '../api-gateway.js';
import { LOCAL_TABLE_NAMES } from '../emulators.js';
import { LocalFirewall } from '../firewall.js';
import { QueuePoller } from '../queue-poller.js';
import { scanAll, type Wiring } from './backing-services.js';
import type { wireKeys } from './keys.js';

/** Seconds, not minutes: a retried message comes back while you watch (AWS: RETRY_BACKOFF). */
const LOCAL_RETRY_BACKOFF: RetryBackoff = { baseSeconds: 1, maxSeconds: 4 };

/** The Messages API: the API Gateway front (firewall → authorizer → usage plans → handlers) and the queue worker. */
export async function startMessages(
  { options, backing, clock, config, services }: Wiring,
  keys: ReturnType<typeof wireKeys>,
  outcomes: MessageOutcomes,
) {
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
    port: options.port ?? 3000,
    authorizer: keys.authorizer,
    usagePlans: keys.usagePlans,
    firewall: new LocalFirewall(config.protection.waf, clock),
    routes: [
      // One send function for both POST routes, and one read function for both GET routes, as on AWS.
      ...['/messages', '/messages/batch'].map((resource) => ({ method: 'POST', resource, handler: send })),
      ...['/messages/{id}', '/messages'].map((resource) => ({ method: 'GET', resource, handler: read })),
    ],
    fallback: createFallbackHandler({ limiter, anonymousLimits: config.anonymous }),
  });
  services.push(api);

  let worker: QueuePoller | undefined;
  if (options.worker ?? true) {
    const handler = createWorkerHandler({
      messages,
      clock,
      maxReceiveCount: config.messages.maxReceiveCount,
      usageHistory: keys.usageHistoryStore,
      processor: options.processor,
      retries: new SqsMessageRetries(backing.queueClient, queues.queueUrl),
      backoff: LOCAL_RETRY_BACKOFF,
      outcomes,
    });
    worker = new QueuePoller(sqsClient, queues.queueUrl, queues.queueArn, handler);
    worker.start();
    services.push(worker);
  }

  return {
    api,
    worker,
    /** With --data: the queue is in memory, so the envelopes of messages still queued are put back. */
    requeueStranded: async () => {
      for (const item of (await scanAll(documentClient, LOCAL_TABLE_NAMES.messages)) as MessageRecord[]) {
        if (item.status === 'queued') await queue.send({ v: 1, id: item.id, accountId: item.accountId, createdAt: item.createdAt });
      }
    },
    redriveDeadLetters: () => redrive(sqsClient, queues.deadLetterQueueUrl, queues.queueUrl),
  };
}

/** Receive from the DLQ, send to the queue (same body and attributes), delete from the DLQ, until empty. */
async function redrive(sqs: SQSClient, from: string, to: string): Promise<number> {
  const receive = { QueueUrl: from, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 30 };
  let moved = 0;
  for (;;) {
    const { Messages: messages = [] } = await sqs.send(new ReceiveMessageCommand({ ...receive, MessageAttributeNames: ['All'] }));
    if (messages.length === 0) return moved;
    const Entries = messages.map((m, i) => ({ Id: String(i), MessageBody: m.Body ?? '', MessageAttributes: m.MessageAttributes }));
    const sent = await sqs.send(new SendMessageBatchCommand({ QueueUrl: to, Entries }));
    // Only what reached the queue leaves the DLQ.
    const ok = new Set((sent.Successful ?? []).map((e) => e.Id));
    const done = messages.filter((_, i) => ok.has(String(i)));
    const receipts = done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle }));
    if (done.length > 0) await sqs.send(new DeleteMessageBatchCommand({ QueueUrl: from, Entries: receipts }));
    moved += done.length;
    if (done.length < messages.length) throw new Error(`redrive: ${messages.length - done.length} messages not sent`);
  }
}
