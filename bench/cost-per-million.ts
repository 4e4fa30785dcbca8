import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, type MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayRequestAuthorizerEvent, SQSEvent } from 'aws-lambda';
import type { LocalPlatform } from '../local/platform.js';
import { type AwsCall, itemBytes, sequentialDepth } from './aws-meter.js';
import { lambdaContext, sendEvent } from './handler-overhead.js';
import { type BenchOptions, type Figure, NO_GOAL, round } from './lib.js';
import { meteredHandlers } from './metered-handlers.js';
import { ASSUMPTIONS, PRICES, PRICES_CHECKED_ON } from './prices.js';

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];
interface RecordedMetric {
  readonly name: string;
  readonly unit: Unit;
  readonly dimension?: readonly [string, string];
}

/** The bytes of the EMF documents these metrics make: one for the undimensioned, one per dimensioned. */
function emfBytes(recorded: readonly RecordedMetric[]): number {
  const doc = (metrics: readonly RecordedMetric[], dimension?: readonly [string, string]) => {
    const m = new Metrics({ namespace: 'MessagesPlatform', serviceName: 'messages-api' });
    if (dimension) m.addDimension(dimension[0], dimension[1]);
    for (const r of metrics) m.addMetric(r.name, r.unit, 1);
    return Buffer.byteLength(`${JSON.stringify(m.serializeMetrics())}\n`);
  };
  const plain = recorded.filter((r) => !r.dimension);
  const dimensioned = recorded.filter((r) => r.dimension);
  return (plain.length ? doc(plain) : 0) + dimensioned.reduce((n, r) => n + doc([r], r.dimension), 0);
}

/** Write request units of DynamoDB writes (1 KB each, rounded up), read request units of reads (4 KB, half for eventual). */
function capacityUnits(calls: readonly AwsCall[], sizeOf: (call: AwsCall) => number) {
  let writes = 0;
  let reads = 0;
  for (const call of calls) {
    const [service, operation] = call.name.split(':');
    if (service !== 'dynamodb') continue;
    if (operation === 'PutItem' || operation === 'UpdateItem' || operation === 'DeleteItem') {
      writes += Math.max(1, Math.ceil(sizeOf(call) / 1024));
    } else if (operation === 'GetItem') {
      reads += Math.max(1, Math.ceil(sizeOf(call) / 4096)) * (call.consistentRead ? 1 : 0.5);
    }
  }
  return { writes, reads };
}

/**
 * What one million accepted messages cost an operator at us-east-1 list prices (prices.ts), from
 * what one run measures: the handlers as the Lambdas build them, on metered SDK clients against the
 * local platform's emulators (metered-handlers.ts), for `count` accepted POSTs in the steady state:
 * each one authorized (authorizer), accepted (send), and processed by the worker in full batches.
 * AWS calls by kind and their sizes, log and EMF bytes are measured; durations, memory, batch
 * size and sampling are stated (ASSUMPTIONS).
 */
export async function costPerMillion(platform: LocalPlatform, options: BenchOptions): Promise<Figure> {
  const { ManualClock } = await import('../test/support/clock.js');
  const { logger, metrics } = await import('../lambda/shared/powertools.js');
  const clock = new ManualClock(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
  const metered = await meteredHandlers(platform, clock);
  const account = platform.demoAccounts.enterprise;
  const { key, secret } = await platform.accountService.createKey(account.accountId, 'bench cost');
  const count = options.smoke ? 10 : 200;

  // What the handlers log at INFO (as deployed) and the EMF documents of the metrics they record,
  // per invocation. The handlers' logger runs at WARN here (Powertools resets a level set by hand
  // at each invocation), so its INFO lines are written again by a logger at INFO with the same
  // context keys, and counted.
  let logBytes = 0;
  let emfTotal = 0;
  const series = new Set<string>();
  const shadow = new Logger({ logLevel: 'INFO', serviceName: 'messages-api' });
  const write = process.stdout.write.bind(process.stdout);
  const info = logger.info.bind(logger);
  const addMetric = metrics.addMetric.bind(metrics);
  const singleMetric = metrics.singleMetric.bind(metrics);
  const capture = async <T>(requestId: string, invoke: () => Promise<T>): Promise<T> => {
    const recorded: RecordedMetric[] = [];
    shadow.addContext(lambdaContext(requestId));
    shadow.appendKeys({ correlation_id: requestId });
    process.stdout.write = ((chunk: string | Uint8Array) => {
      logBytes += Buffer.byteLength(chunk);
      return true;
    }) as typeof process.stdout.write;
    type Log = (...args: unknown[]) => void;
    logger.info = ((...args: unknown[]) => {
      (shadow.info as Log)(...args);
      (info as Log)(...args);
    }) as typeof logger.info;
    metrics.addMetric = (name, unit, value) => {
      recorded.push({ name, unit });
      return addMetric(name, unit, value);
    };
    metrics.singleMetric = () => {
      let dimension: readonly [string, string] | undefined;
      const single = singleMetric();
      return Object.assign(single, {
        addDimension: (n: string, v: string) => ((dimension = [n, v]), single),
        addMetric: (name: string, unit: Unit) => {
          recorded.push({ name, unit, ...(dimension ? { dimension } : {}) });
          return single;
        },
      });
    };
    try {
      return await invoke();
    } finally {
      process.stdout.write = write;
      logger.info = info;
      metrics.addMetric = addMetric;
      metrics.singleMetric = singleMetric;
      emfTotal += emfBytes(recorded);
      for (const r of recorded) series.add(r.dimension ? `${r.name}{${r.dimension.join('=')}}` : r.name);
    }
  };

  const authorizerEvent = (i: number) =>
    ({
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:us-east-1:000000000000:bench/v1/POST/messages',
      headers: { Authorization: `Bearer ${secret}` },
      requestContext: { requestId: `cost-${i}` },
    }) as unknown as APIGatewayRequestAuthorizerEvent;

  const measure = async (withIdempotencyKey: boolean) => {
    // Warm the container (the authorizer's key cache, the key's first window) outside the figures.
    await metered.authorizer(authorizerEvent(-1), lambdaContext('warm'));
    await metered.send(sendEvent(-1, key.keyId, account.accountId), lambdaContext('warm'));
    metered.calls.length = 0;
    metered.queued.length = 0;
    logBytes = 0;
    emfTotal = 0;
    series.clear();
    const depth = { authorizer: 0, send: 0, worker: 0 };
    {
      for (let i = 0; i < count; i++) {
        const from = metered.calls.length;
        await capture(`cost-a-${i}`, () => metered.authorizer(authorizerEvent(i), lambdaContext(`cost-a-${i}`)));
        depth.authorizer = Math.max(depth.authorizer, sequentialDepth(metered.calls.slice(from)));
        const event = sendEvent(i, key.keyId, account.accountId);
        if (withIdempotencyKey) event.headers['idempotency-key'] = `cost-${Date.now()}-${i}-${Math.random()}`;
        const sent = metered.calls.length;
        const answer = await capture(`cost-s-${i}`, () => metered.send(event, lambdaContext(`cost-s-${i}`)));
        if (answer.statusCode !== 202) throw new Error(`cost: POST answered ${answer.statusCode}: ${answer.body}`);
        depth.send = Math.max(depth.send, sequentialDepth(metered.calls.slice(sent)));
      }
      const batches = Math.ceil(metered.queued.length / ASSUMPTIONS.workerBatchSize);
      for (let b = 0; b < batches; b++) {
        const batch = metered.queued.slice(b * ASSUMPTIONS.workerBatchSize, (b + 1) * ASSUMPTIONS.workerBatchSize);
        const event = {
          Records: batch.map((envelope) => ({
            messageId: `sqs-${envelope.id}`,
            body: JSON.stringify(envelope),
            attributes: { ApproximateReceiveCount: '1' },
            messageAttributes: { messageId: { stringValue: envelope.id, dataType: 'String' } },
          })),
        } as unknown as SQSEvent;
        const from = metered.calls.length;
        const answer = await capture(`cost-w-${b}`, () => metered.worker(event, lambdaContext(`cost-w-${b}`)));
        if (answer.batchItemFailures.length > 0) throw new Error('cost: the worker failed messages');
        depth.worker = Math.max(depth.worker, sequentialDepth(metered.calls.slice(from)));
      }
    }
    const calls = [...metered.calls];

    // Items written without an answer (the worker's update) are sized as stored afterwards.
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const stored = new Map<AwsCall, number>();
    for (const call of calls) {
      if (!call.item && call.key && call.table) {
        const out = await metered.documentClient.send(new GetCommand({ TableName: call.table, Key: call.key }));
        stored.set(call, itemBytes(out.Item ?? call.key));
      }
    }
    const sizeOf = (call: AwsCall) => stored.get(call) ?? itemBytes(call.item ?? call.key ?? {});
    const byKind: Record<string, number> = {};
    for (const call of calls) byKind[call.name] = round((byKind[call.name] ?? 0) + 1 / count, 3);
    const units = capacityUnits(calls, sizeOf);
    const sqsChunks = calls
      .filter((c) => c.name === 'sqs:SendMessage')
      .reduce((n, c) => n + Math.max(1, Math.ceil((c.payloadBytes ?? 0) / 65_536)), 0);

    // Per accepted message.
    const workerInvocations = 1 / ASSUMPTIONS.workerBatchSize;
    const durationMs = {
      authorizer: depth.authorizer * ASSUMPTIONS.awsRoundTripMs + ASSUMPTIONS.handlerWorkMs,
      send: depth.send * ASSUMPTIONS.awsRoundTripMs + ASSUMPTIONS.handlerWorkMs,
      worker: depth.worker * ASSUMPTIONS.awsRoundTripMs + ASSUMPTIONS.handlerWorkMs,
    };
    const msPerMessage = durationMs.authorizer + durationMs.send + durationMs.worker * workerInvocations;
    const gbSeconds = (ASSUMPTIONS.lambdaMemoryGb * msPerMessage) / 1000;
    const invocations = 2 + workerInvocations;
    const emf = emfTotal / count;
    // Metrics are disabled in the bench process: what was written is the log lines alone.
    const logs = logBytes / count;
    const logBytesPerMessage = logs + emf + invocations * ASSUMPTIONS.lambdaPlatformLogBytes;
    const perMessage = {
      apiGateway: PRICES.apiGatewayRestRequest.usd,
      waf: PRICES.wafRequest.usd,
      lambda: invocations * PRICES.lambdaRequest.usd + gbSeconds * PRICES.lambdaArmGbSecond.usd,
      dynamoDb:
        (units.writes / count) * PRICES.dynamoDbWriteRequestUnit.usd +
        (units.reads / count) * PRICES.dynamoDbReadRequestUnit.usd,
      sqs: (sqsChunks / count + ASSUMPTIONS.sqsRequestsPerBatch / ASSUMPTIONS.workerBatchSize) * PRICES.sqsRequest.usd,
      cloudWatchLogs: (logBytesPerMessage / 1024 ** 3) * PRICES.cloudWatchLogsIngestedGb.usd,
      xray: ASSUMPTIONS.xraySampling * (1 + workerInvocations) * PRICES.xrayTraceRecorded.usd,
    };
    const perMillion = Object.fromEntries(Object.entries(perMessage).map(([k, v]) => [k, round(v * 1e6, 3)])) as Record<
      keyof typeof perMessage,
      number
    >;
    const total = round(Object.values(perMillion).reduce((a, b) => a + b, 0), 2);
    return {
      totalUsd: total,
      perMillionUsd: perMillion,
      measuredPerMessage: {
        awsCallsByKind: byKind,
        dynamoDbWriteUnits: round(units.writes / count, 3),
        dynamoDbReadUnits: round(units.reads / count, 3),
        sqsBilledRequestsForSendMessage: round(sqsChunks / count, 3),
        logBytes: round(logs, 0),
        emfBytes: round(emf, 0),
        sequentialDepth: depth,
      },
      stated: { durationMs, lambdaMemoryGb: ASSUMPTIONS.lambdaMemoryGb, invocationsPerMessage: round(invocations, 2) },
      metricSeries: [...series],
    };
  };

  try {
    const plain = await measure(false);
    const withKey = await measure(true);
    const fixedMonthlyUsd = {
      waf: PRICES.wafWebAclMonth.usd + ASSUMPTIONS.wafRules * PRICES.wafRuleMonth.usd,
      customMetrics: round(plain.metricSeries.length * PRICES.cloudWatchCustomMetricMonth.usd, 2),
    };
    const parts = Object.entries(plain.perMillionUsd)
      .map(([k, v]) => `${k} $${v}`)
      .join(', ');
    return {
      figure: 'cost-per-million (USD per million accepted messages, us-east-1 list prices)',
      value:
        `$${plain.totalUsd} (${parts}); with Idempotency-Key $${withKey.totalUsd};` +
        ` fixed monthly: WAF $${fixedMonthlyUsd.waf}, ${plain.metricSeries.length} custom metric series $${fixedMonthlyUsd.customMetrics}` +
        ` (prices of ${PRICES_CHECKED_ON}, bench/prices.ts)`,
      goal: NO_GOAL,
      pass: null,
      details: {
        messages: count,
        withoutIdempotencyKey: plain,
        withIdempotencyKey: withKey,
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
