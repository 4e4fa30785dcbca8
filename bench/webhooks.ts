import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_DELIVERY_SOURCE } from '../contracts/webhooks.js';
import { DynamoDbMessageStore } from '../lambda/messages/dynamodb-message-store.js';
import { toMessageResource } from '../lambda/messages/index.js';
import { DATA_PLANE } from '../lambda/shared/aws-clients.js';
import { createDocumentClient } from '../lambda/shared/dynamodb.js';
import { monotonicUlid } from '../lambda/shared/ulid.js';
import { deliver } from '../lambda/webhooks/deliver.js';
import { DynamoDbWebhookStore } from '../lambda/webhooks/dynamodb-webhook-store.js';
import { createWebhookPoster } from '../lambda/webhooks/http-sender.js';
import { LOCAL_DELIVERY_POLICY } from '../lambda/webhooks/network-policy.js';
import { createWebhookOutcomes } from '../lambda/webhooks/outcomes.js';
import { SqsDeliveryQueue } from '../lambda/webhooks/sqs-delivery-queue.js';
import { loadConfig } from '../lib/config/index.js';
import { LOCAL_AWS, LOCAL_TABLE_NAMES } from '../local/emulators.js';
import type { LocalPlatform } from '../local/platform.js';
import { LOCAL_WEBHOOKS_TABLE } from '../local/wiring/webhooks.js';
import { send } from '../test/support/platform.js';
import { startWebhookReceiver } from '../test/support/webhook-receiver.js';
import { type AwsCall, meter } from './aws-meter.js';
import { callsByKind, capacityUnits, perMillionUsd, sqsBilledSends } from './cost-arithmetic.js';
import { type BenchOptions, type Figure, NO_GOAL, onPlatform, percentile, round, UNLIMITED } from './lib.js';
import { ASSUMPTIONS, PRICES } from './prices.js';

type Received = Array<{ at: number; id: string }>;

/**
 * Stated: an owner's endpoint answers 2xx in `endpointAnswerMs` (the delivery function waits for it,
 * billed duration); delivery batches are full (WEBHOOK_DELIVERY_SOURCE), their jobs in parallel.
 */
const DELIVERY_ASSUMPTIONS = { endpointAnswerMs: 100, deliveryBatchSize: WEBHOOK_DELIVERY_SOURCE.batchSize } as const;

/**
 * Webhooks' added cost per million processed messages with one endpoint, from the AWS calls of the
 * worker's notify and of each job's delivery (metered, to a receiver that verifies every delivery);
 * then, as context, the time from a 202 to a verified delivery through the local platform.
 */
export async function webhooksBench(options: BenchOptions): Promise<Figure[]> {
  // Its own platform: the worker on (the latency figure waits for processing), limits out of the way.
  const config = loadConfig({ plans: { enterprise: { limits: UNLIMITED } } });
  return onPlatform({ config }, (platform) => webhooksCost(platform, options));
}

async function webhooksCost(platform: LocalPlatform, options: BenchOptions): Promise<Figure[]> {
  const count = options.smoke ? 5 : 100;
  const received: Received = [];
  let secret = '';
  const receiver = await startWebhookReceiver((_i, delivery) => {
    const headers = delivery.headers as Record<string, string>;
    const event = new Webhook(secret).verify(delivery.body, headers) as { data: { id: string } };
    received.push({ at: performance.now(), id: event.data.id });
    return 204;
  });
  const calls: AwsCall[] = [];
  const documents = createDocumentClient({ ...LOCAL_AWS, endpoint: platform.endpoints.dynamodb });
  meter(documents, calls);
  const sqs = new SQSClient({ ...DATA_PLANE, ...LOCAL_AWS, endpoint: platform.endpoints.sqs });
  meter(sqs, calls);
  try {
    const account = await platform.accountService.createAccount({ name: 'bench webhooks', plan: 'enterprise' });
    const key = await platform.issueKey(account, 'bench webhooks');
    const created = await platform.webhooks.service.create(account.accountId, { url: receiver.url });
    secret = created.secret;

    // Processed message records as the worker leaves them, written directly: the platform's own
    // worker and delivery poller must not see them (their jobs would claim the same attempts).
    const now = Date.now();
    const records = new DynamoDbMessageStore(documents, LOCAL_TABLE_NAMES.messages);
    const messages = [];
    for (let i = 0; i < count; i++) {
      const at = new Date(now + i).toISOString();
      const record = {
        id: `msg_${monotonicUlid(now + i)}`,
        accountId: account.accountId,
        keyId: 'key_bench',
        message: `bench webhook ${i}`,
        status: 'processed' as const,
        createdAt: at,
        processedAt: at,
        attempts: 1,
        expiresAt: Math.floor(now / 1000) + 86_400,
      };
      await records.create(record);
      messages.push(toMessageResource(record));
    }

    const store = new DynamoDbWebhookStore(documents, LOCAL_WEBHOOKS_TABLE);
    // A queue of the bench's own: the platform's delivery poller must not take these jobs.
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'bench-webhook-jobs' }));
    const queue = new SqsDeliveryQueue(sqs, QueueUrl as string);
    const outcomes = createWebhookOutcomes({
      store,
      queue,
      clock: platform.clock,
      messages: {
        ownerOf: async (id) => {
          const record = await records.get(id);
          return record ? { accountId: record.accountId, expiresAt: record.expiresAt } : undefined;
        },
      },
    });
    // The jobs notify enqueued, as the delivery function would receive them, delivered here, metered.
    const jobs: unknown[] = [];
    const sendBatch = queue.enqueueAll.bind(queue);
    queue.enqueueAll = async (batch) => {
      jobs.push(...batch);
      await sendBatch(batch);
    };
    const post = createWebhookPoster(LOCAL_DELIVERY_POLICY, { timeoutMs: 15_000 });
    calls.length = 0;
    for (const message of messages) await outcomes.notify('message.processed', message);
    const deps = { store, queue, post, clock: platform.clock, staleClaimMs: 30_000 };
    for (const job of jobs) await deliver(job as Parameters<typeof deliver>[0], deps);

    const perMessage = (n: number) => n / count;
    const allCalls = calls.splice(0);
    const units = capacityUnits(allCalls, () => undefined);
    // A Query of an account's endpoints reads one small page: counted as one consistent read unit.
    const queryReads = allCalls.filter((c) => c.name === 'dynamodb:Query').length;
    const deliveryInvocations = 1 / DELIVERY_ASSUMPTIONS.deliveryBatchSize;
    const deliveryMs =
      ASSUMPTIONS.handlerWorkMs + DELIVERY_ASSUMPTIONS.endpointAnswerMs + 3 * ASSUMPTIONS.awsRoundTripMs;
    const workerAddedMs = 3 * ASSUMPTIONS.awsRoundTripMs / ASSUMPTIONS.workerBatchSize;
    const usd = {
      dynamoDb:
        perMessage(units.writes) * PRICES.dynamoDbWriteRequestUnit.usd +
        (perMessage(units.reads) + perMessage(queryReads)) * PRICES.dynamoDbReadRequestUnit.usd,
      sqs: (perMessage(sqsBilledSends(allCalls)) + deliveryInvocations * 2) * PRICES.sqsRequest.usd,
      lambda:
        deliveryInvocations * PRICES.lambdaRequest.usd +
        (((deliveryInvocations * deliveryMs + workerAddedMs) * ASSUMPTIONS.lambdaMemoryGb) / 1000) *
        PRICES.lambdaArmGbSecond.usd,
      logs: ((deliveryInvocations * (ASSUMPTIONS.lambdaPlatformLogBytes + 300)) / 1024 ** 3) *
        PRICES.cloudWatchLogsIngestedGb.usd,
    };
    const { perMillionUsd: perMillion, totalUsd: total } = perMillionUsd(usd);
    const byKind = callsByKind(allCalls, count, 3);

    const latency = await latencyTo(platform, key, received, count);
    return [
      {
        figure: 'webhooks-cost-per-million (USD added per million processed messages, one endpoint, us-east-1 list prices)',
        value:
          `$${total} (${Object.entries(perMillion).map(([k, v]) => `${k} $${v}`).join(', ')}); ` +
          `per message: ${Object.entries(byKind).map(([k, v]) => `${k} ${v}`).join(', ')}; ` +
          `stated: endpoint answers in ${DELIVERY_ASSUMPTIONS.endpointAnswerMs} ms, delivery batches of ${DELIVERY_ASSUMPTIONS.deliveryBatchSize}`,
        goal: NO_GOAL,
        pass: null,
        details: {
          perMillionUsd: perMillion,
          callsPerMessage: byKind,
          assumptions: { ...ASSUMPTIONS, ...DELIVERY_ASSUMPTIONS },
        },
      },
      latency,
    ];
  } finally {
    documents.destroy();
    sqs.destroy();
    await receiver.stop();
  }
}

/** Time from the 202 of POST /messages to the receiver's verified delivery, through the local platform. */
async function latencyTo(platform: LocalPlatform, key: string, received: Received, count: number): Promise<Figure> {
  const samples: number[] = [];
  const n = Math.min(count, 30);
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const { id } = (await send(platform, key, `latency ${i}`, { checkSpec: false })).body as { id: string };
    while (!received.some((r) => r.id === id)) await new Promise((r) => setTimeout(r, 10));
    samples.push((received.find((r) => r.id === id)?.at ?? start) - start);
  }
  return {
    figure: 'webhooks-latency (202 to a verified webhook, local platform)',
    value: `p50 ${round(percentile(samples, 50), 0)} ms, p95 ${round(percentile(samples, 95), 0)} ms over ${n} messages`,
    goal: NO_GOAL,
    pass: null,
  };
}
