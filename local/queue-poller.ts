import { EventEmitter } from 'node:events';
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { WORKER_EVENT_SOURCE } from '../contracts/messages.js';
import { localLambdaContext } from './loopback.js';

/** What a killed worker instance had: the bodies it received, and those it got through before dying. */
interface KilledBatch {
  readonly received: readonly string[];
  readonly handled: readonly string[];
}

/** A batch the worker was invoked with: every body, and the bodies it reported as failures (left on the queue). */
export interface HandledBatch {
  readonly bodies: readonly string[];
  readonly failed: readonly string[];
}

/** SQS's own ceiling: ReceiveMessage returns, and DeleteMessageBatch takes, at most 10 messages. */
const SQS_BATCH_MAX = 10;

/** The Lambda SQS event source mapping, without waiting out the batching window for a lone message. */
export class QueuePoller {
  /** For tests to wait on instead of sleeping: `batch` (a HandledBatch) once its successes are deleted. */
  readonly events = new EventEmitter<{ batch: [HandledBatch] }>();
  private running = false;
  private failing = false;
  private loop: Promise<void> | undefined;
  private inFlight: AbortController | undefined;
  private kill: ((outcome: KilledBatch) => void) | undefined;

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    private readonly queueArn: string,
    private readonly worker: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>,
    private readonly options: { batchSize: number; batchingWindowMs: number } = {
      batchSize: WORKER_EVENT_SOURCE.batchSize,
      batchingWindowMs: WORKER_EVENT_SOURCE.maxBatchingWindowSeconds * 1000,
    },
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.inFlight?.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.pollOnce();
        if (this.failing) console.error('queue poller: the queue is reachable again');
        this.failing = false;
      } catch (error) {
        if (!this.running) break;
        // Queue unreachable (e.g. stopped in a fault test): back off, like the event source does.
        if (!this.failing)
          console.error(`queue poller: ${(error as Error).name}: ${(error as Error).message}; retrying`);
        this.failing = true;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** Tests: the worker handles half the next batch, then dies deleting nothing (all come back after the timeout). */
  killDuringNextBatch(): Promise<KilledBatch> {
    return new Promise((resolve) => {
      this.kill = resolve;
    });
  }

  private async pollOnce(): Promise<void> {
    const messages = await this.receiveBatch();
    if (messages.length === 0) return;
    const records = messages.map((m) => sqsRecordOf(m, { queueArn: this.queueArn, region: 'us-east-1', senderId: 'local' }));
    const context = localLambdaContext('worker', `worker-${Date.now()}`, 30_000);
    const kill = this.kill;
    if (kill) {
      this.kill = undefined;
      const handled = records.slice(0, Math.ceil(records.length / 2));
      await this.worker({ Records: handled }, context).catch(() => undefined);
      return kill({ received: records.map((r) => r.body), handled: handled.map((r) => r.body) });
    }
    let failed: Set<string>;
    try {
      const response = await this.worker({ Records: records }, context);
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      return console.error('worker invocation failed; the whole batch will be retried', error);
    }
    const done = messages.filter((m) => !failed.has(m.MessageId as string));
    for (let i = 0; i < done.length; i += SQS_BATCH_MAX) {
      const batch = done.slice(i, i + SQS_BATCH_MAX);
      const Entries = batch.map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle }));
      await this.sqs.send(new DeleteMessageBatchCommand({ QueueUrl: this.queueUrl, Entries }));
    }
    this.events.emit('batch', {
      bodies: messages.map((m) => m.Body ?? ''),
      failed: messages.filter((m) => failed.has(m.MessageId as string)).map((m) => m.Body ?? ''),
    });
  }

  /** A long poll, then more receives of 10 while full ones keep coming, up to the batch size and window. */
  private async receiveBatch(): Promise<Message[]> {
    this.inFlight = new AbortController();
    const started = Date.now();
    const messages: Message[] = [];
    let waitTimeSeconds = 1;
    while (messages.length < this.options.batchSize) {
      const received = await this.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: this.queueUrl,
          MaxNumberOfMessages: Math.min(SQS_BATCH_MAX, this.options.batchSize - messages.length),
          WaitTimeSeconds: waitTimeSeconds,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: this.inFlight.signal },
      );
      const got = received.Messages ?? [];
      messages.push(...got);
      if (got.length < SQS_BATCH_MAX || Date.now() - started >= this.options.batchingWindowMs) break;
      waitTimeSeconds = 0;
    }
    return messages;
  }
}

/** The event source mapping's record for a received message: what the poller and the bundle stage hand the worker. */
export function sqsRecordOf(
  message: Message,
  source: { readonly queueArn: string; readonly region: string; readonly senderId: string },
): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? source.senderId,
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          stringValue: value.StringValue,
          dataType: value.DataType ?? 'String',
          stringListValues: [],
          binaryListValues: [],
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: source.queueArn,
    awsRegion: source.region,
  };
}
