import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalPlatform } from '../local/platform.js';
import { ManualClock } from '../test/support/clock.js';
import { type AwsCall, itemBytes, sequentialDepth } from './aws-meter.js';
import {
  callsByKind,
  capacityUnits,
  costPerMillionMessages,
  dominantComponent,
  type MeasuredRun,
  sqsBilledSends,
} from './cost-arithmetic.js';
import { logAndMetricCapture } from './cost-capture.js';
import { authorizerEvent, batchEvent, lambdaContext, sendEvent, workerEvent } from './events.js';
import { type BenchOptions, type Figure, round } from './lib.js';
import { meteredHandlers } from './metered-handlers.js';
import { ASSUMPTIONS, PRICES, PRICES_CHECKED_ON } from './prices.js';

/** Goals in USD per million accepted messages at list prices: batches of 100 (issue 18), single sends (issue 23). */
const BATCH_GOAL_USD = 1.5;
const SINGLE_GOAL_USD = 7.5;
const BATCH_SIZE = 100;

/** How the messages are sent: one POST /messages each (with or without an Idempotency-Key), or POST /messages/batch of 100. */
type Sending = 'single' | 'idempotent' | 'batch';
const TAGS: Record<Sending, string> = { single: 's', idempotent: 'k', batch: 'b' };

/** What one million accepted messages cost an operator: bench/README.md, "cost-per-million". */
export async function costPerMillion(platform: LocalPlatform, options: BenchOptions): Promise<Figure> {
  const clock = new ManualClock(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
  const metered = meteredHandlers(platform, clock);
  // Its own account with one key: other figures leave keys in use in the demo accounts, and every
  // key in use in an account's window makes its limiter item larger (bench/README.md, "cost-per-million").
  const account = await platform.accountService.createAccount({ name: 'bench cost', plan: 'enterprise' });
  const { key, secret } = await platform.accountService.createKey(account.accountId, 'bench cost');
  const capture = logAndMetricCapture();
  const singles = options.smoke ? 10 : 200;
  const batches = options.smoke ? 1 : 10;

  /** `requests` requests of one way of sending (each authorized, then sent), then the worker over what they enqueued. */
  const measure = async (sending: Sending, requests: number) => {
    // Warm the container (the authorizer's key cache, the key's first window) outside the figures.
    await metered.authorizer(authorizerEvent(secret, 'cost--1'), lambdaContext('warm'));
    await metered.send(sendEvent(-1, key.keyId, account.accountId), lambdaContext('warm'));
    metered.calls.length = 0;
    metered.queued.length = 0;
    capture.reset();
    const depth = { authorizer: 0, send: 0, worker: 0 };
    const tag = TAGS[sending];

    for (let i = 0; i < requests; i++) {
      const from = metered.calls.length;
      const authorizerId = `cost-${tag}-a-${i}`;
      const authorize = authorizerEvent(secret, `cost-${i}`);
      await capture.capture(authorizerId, () => metered.authorizer(authorize, lambdaContext(authorizerId)));
      depth.authorizer = Math.max(depth.authorizer, sequentialDepth(metered.calls.slice(from)));
      const sent = metered.calls.length;
      const sendId = `cost-${tag}-${i}`;
      const idempotencyKey = sending === 'idempotent' ? `cost-${Date.now()}-${i}-${Math.random()}` : undefined;
      const answer = await capture.capture(sendId, () =>
        sending === 'batch'
          ? metered.sendBatch(batchEvent(20_000 + i, key.keyId, account.accountId), lambdaContext(sendId))
          : metered.send(sendEvent(i, key.keyId, account.accountId, idempotencyKey), lambdaContext(sendId)),
      );
      if (answer.statusCode !== 202) throw new Error(`cost: ${sending} POST answered ${answer.statusCode}: ${answer.body}`);
      depth.send = Math.max(depth.send, sequentialDepth(metered.calls.slice(sent)));
    }
    const messages = metered.queued.length;
    const workerInvocations = Math.ceil(messages / ASSUMPTIONS.workerBatchSize);
    for (let b = 0; b < workerInvocations; b++) {
      const batch = metered.queued.slice(b * ASSUMPTIONS.workerBatchSize, (b + 1) * ASSUMPTIONS.workerBatchSize);
      const from = metered.calls.length;
      const workerId = `cost-${tag}-w-${b}`;
      const answer = await capture.capture(workerId, () => metered.worker(workerEvent(batch), lambdaContext(workerId)));
      if (answer.batchItemFailures.length > 0) throw new Error('cost: the worker failed messages');
      depth.worker = Math.max(depth.worker, sequentialDepth(metered.calls.slice(from)));
    }
    const calls = [...metered.calls];
    const stored = await storedSizes(metered.documentClient, calls);
    const units = capacityUnits(calls, (call) => stored.get(call));
    const run: MeasuredRun = {
      messages,
      requests,
      workerInvocations,
      writeUnits: units.writes,
      readUnits: units.reads,
      sqsBilledSends: sqsBilledSends(calls),
      logBytes: capture.totals.logBytes,
      emfBytes: capture.totals.emfBytes,
      depth,
    };
    return {
      ...costPerMillionMessages(run),
      measuredPerMessage: {
        awsCallsByKind: callsByKind(calls, messages, 4),
        dynamoDbWriteUnits: round(units.writes / messages, 3),
        dynamoDbWriteUnitsByOperation: writeUnitsByOperation(calls, (call) => stored.get(call), messages),
        dynamoDbReadUnits: round(units.reads / messages, 3),
        sqsBilledSendRequests: round(run.sqsBilledSends / messages, 3),
        logBytes: round(run.logBytes / messages, 0),
        emfBytes: round(run.emfBytes / messages, 0),
        sequentialDepth: depth,
      },
      messages,
      requests,
      metricSeries: [...capture.series],
    };
  };

  try {
    const plain = await measure('single', singles);
    const withKey = await measure('idempotent', singles);
    const batch = await measure('batch', batches);
    const fixedMonthlyUsd = {
      waf: PRICES.wafWebAclMonth.usd + ASSUMPTIONS.wafRules * PRICES.wafRuleMonth.usd,
      customMetrics: round(plain.metricSeries.length * PRICES.cloudWatchCustomMetricMonth.usd, 2),
    };
    const parts = (m: typeof plain) => Object.entries(m.perMillionUsd).map(([k, v]) => `${k} $${v}`).join(', ');
    const verdict = (m: typeof plain, goal: number) => {
      const top = dominantComponent(m.perMillionUsd);
      const largest = `${top.name} is the largest ($${top.usd}, ${Math.round(top.share * 100)} %)`;
      return m.totalUsd <= goal
        ? `under the goal by $${round(goal - m.totalUsd, 2)}; ${largest}`
        : `over the goal by $${round(m.totalUsd - goal, 2)}; ${largest}`;
    };
    const pass = batch.totalUsd <= BATCH_GOAL_USD && plain.totalUsd <= SINGLE_GOAL_USD;
    return {
      figure: 'cost-per-million (USD per million accepted messages, us-east-1 list prices)',
      value:
        `batches of ${BATCH_SIZE} $${batch.totalUsd} (${parts(batch)}; ${verdict(batch, BATCH_GOAL_USD)}); ` +
        `single sends $${plain.totalUsd} (${parts(plain)}; ${verdict(plain, SINGLE_GOAL_USD)}), ` +
        `with Idempotency-Key $${withKey.totalUsd}; ` +
        `fixed monthly: WAF $${fixedMonthlyUsd.waf}, ${plain.metricSeries.length} custom metric series $${fixedMonthlyUsd.customMetrics}` +
        ` (prices of ${PRICES_CHECKED_ON}, bench/prices.ts)`,
      goal: `batches of ${BATCH_SIZE} ≤ $${BATCH_GOAL_USD} and single sends ≤ $${SINGLE_GOAL_USD} per million accepted messages`,
      pass,
      details: {
        batchesOf100: batch,
        singleWithoutIdempotencyKey: plain,
        singleWithIdempotencyKey: withKey,
        fixedMonthlyUsd,
        assumptions: ASSUMPTIONS,
        prices: PRICES,
        pricesCheckedOn: PRICES_CHECKED_ON,
      },
    };
  } finally {
    metered.destroy();
  }
}

/** Write units per message by operation and table: where the DynamoDB component comes from. */
function writeUnitsByOperation(
  calls: readonly AwsCall[],
  stored: (call: AwsCall) => number | undefined,
  messages: number,
) {
  const units: Record<string, number> = {};
  for (const call of calls) {
    if (!call.name.startsWith('dynamodb:') || call.name === 'dynamodb:GetItem') continue;
    const name = `${call.name} ${call.table ?? ''}`;
    units[name] = (units[name] ?? 0) + capacityUnits([call], stored).writes;
  }
  return Object.fromEntries(Object.entries(units).map(([name, writes]) => [name, round(writes / messages, 3)]));
}

/** Items updated or deleted, read back after the run and sized: their writes' answers do not always carry them whole. */
async function storedSizes(documents: DynamoDBDocumentClient, calls: readonly AwsCall[]) {
  const byItem = new Map<string, number | undefined>();
  const sizes = new Map<AwsCall, number | undefined>();
  for (const call of calls) {
    if (!call.key || !call.table) continue;
    const id = `${call.table} ${JSON.stringify(call.key)}`;
    if (!byItem.has(id)) {
      const read = new GetCommand({ TableName: call.table, Key: call.key, ConsistentRead: true });
      const out = await documents.send(read);
      byItem.set(id, out.Item ? itemBytes(out.Item) : undefined);
    }
    sizes.set(call, byItem.get(id));
  }
  return sizes;
}
