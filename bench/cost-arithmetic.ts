import { type AwsCall, itemBytes } from './aws-meter.js';
import { round } from './lib.js';
import { ASSUMPTIONS, PRICES } from './prices.js';

/** Billing rules: bench/README.md, "How the bill is counted" (DynamoDB and SQS pricing pages). */
const WRITE_UNIT_BYTES = 1024;
const READ_UNIT_BYTES = 4096;
const SQS_CHUNK_BYTES = 65_536;

const writeUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / WRITE_UNIT_BYTES));

/**
 * Write and read request units of the DynamoDB calls. `storedBytes`: an updated or deleted item's
 * size as read back after the run (undefined: gone), for writes whose answer does not carry it.
 */
export function capacityUnits(calls: readonly AwsCall[], storedBytes: (call: AwsCall) => number | undefined) {
  let writes = 0;
  let reads = 0;
  for (const call of calls) {
    const [service, operation] = call.name.split(':');
    if (service !== 'dynamodb') continue;
    if (operation === 'PutItem') {
      writes += writeUnits(itemBytes(call.item ?? {}));
    } else if (operation === 'UpdateItem') {
      // Its answer (ALL_NEW, ALL_OLD, UPDATED_NEW or none) and the item read back: the larger.
      writes += writeUnits(Math.max(itemBytes(call.item ?? call.key ?? {}), storedBytes(call) ?? 0));
    } else if (operation === 'DeleteItem') {
      writes += writeUnits(storedBytes(call) ?? itemBytes(call.key ?? {}));
    } else if (operation === 'BatchWriteItem') {
      for (const item of call.putItems ?? []) writes += writeUnits(itemBytes(item));
      // Only a 503's compensation deletes records, which no figure here provokes: sized by the key.
      for (const key of call.deleteKeys ?? []) writes += writeUnits(itemBytes(key));
    } else if (operation === 'GetItem') {
      reads += Math.max(1, Math.ceil(itemBytes(call.item ?? {}) / READ_UNIT_BYTES)) * (call.consistentRead ? 1 : 0.5);
    }
  }
  return { writes, reads };
}

/** SQS requests billed for the sends (SendMessage and SendMessageBatch): one per started 64 KB of payload. */
export function sqsBilledSends(calls: readonly AwsCall[]): number {
  return calls
    .filter((c) => c.name === 'sqs:SendMessage' || c.name === 'sqs:SendMessageBatch')
    .reduce((n, c) => n + Math.max(1, Math.ceil((c.payloadBytes ?? 0) / SQS_CHUNK_BYTES)), 0);
}

/** What one run measured, in totals over `messages` accepted messages sent in `requests` API requests. */
export type MeasuredRun = Readonly<
  Record<'messages' | 'requests' | 'workerInvocations' | 'writeUnits' | 'readUnits' | 'sqsBilledSends', number> &
  Record<'logBytes' | 'emfBytes', number> & {
    /** The deepest sequential chain of AWS calls of one invocation, per handler. */
    depth: Readonly<Record<'authorizer' | 'send' | 'worker', number>>;
  }
>;

/** USD per million accepted messages, per component (bench/README.md, "cost-per-million"). */
export function costPerMillionMessages(run: MeasuredRun) {
  const perMessage = (total: number) => total / run.messages;
  const requests = perMessage(run.requests);
  const workerInvocations = perMessage(run.workerInvocations);
  const ms = (depth: number) => depth * ASSUMPTIONS.awsRoundTripMs + ASSUMPTIONS.handlerWorkMs;
  const durationMs = { authorizer: ms(run.depth.authorizer), send: ms(run.depth.send), worker: ms(run.depth.worker) };
  const msPerMessage = requests * (durationMs.authorizer + durationMs.send) + workerInvocations * durationMs.worker;
  const gbSeconds = (ASSUMPTIONS.lambdaMemoryGb * msPerMessage) / 1000;
  const invocations = 2 * requests + workerInvocations;
  const logBytes =
    perMessage(run.logBytes) + perMessage(run.emfBytes) + invocations * ASSUMPTIONS.lambdaPlatformLogBytes;
  const usd = {
    apiGateway: requests * PRICES.apiGatewayRestRequest.usd,
    waf: requests * PRICES.wafRequest.usd,
    lambda: invocations * PRICES.lambdaRequest.usd + gbSeconds * PRICES.lambdaArmGbSecond.usd,
    dynamoDb:
      perMessage(run.writeUnits) * PRICES.dynamoDbWriteRequestUnit.usd +
      perMessage(run.readUnits) * PRICES.dynamoDbReadRequestUnit.usd,
    sqs: (perMessage(run.sqsBilledSends) + workerInvocations * ASSUMPTIONS.sqsRequestsPerBatch) * PRICES.sqsRequest.usd,
    cloudWatchLogs: (logBytes / 1024 ** 3) * PRICES.cloudWatchLogsIngestedGb.usd,
    xray:
      (ASSUMPTIONS.apiTraceSampling * requests + ASSUMPTIONS.workerTraceSampling * workerInvocations) *
      PRICES.xrayTraceRecorded.usd,
  };
  return {
    ...perMillionUsd(usd),
    stated: { durationMs, lambdaMemoryGb: ASSUMPTIONS.lambdaMemoryGb, invocationsPerMessage: round(invocations, 3) },
  };
}

/** The component that costs most, and its share of the total. */
export function dominantComponent(perMillionUsd: Readonly<Record<string, number>>) {
  const entries = Object.entries(perMillionUsd);
  const total = entries.reduce((n, [, v]) => n + v, 0);
  const [name, usd] = entries.reduce((a, b) => (b[1] > a[1] ? b : a));
  return { name, usd, share: total > 0 ? usd / total : 0 };
}

/** USD per message, per component, as USD per million (3 decimals) and their total (2 decimals). */
export function perMillionUsd<K extends string>(usd: Record<K, number>) {
  const perMillion = Object.fromEntries(Object.entries<number>(usd).map(([k, v]) => [k, round(v * 1e6, 3)]));
  return {
    totalUsd: round(Object.values(perMillion).reduce((a, b) => a + b, 0), 2),
    perMillionUsd: perMillion as Record<K, number>,
  };
}

/** AWS calls per message, by kind (each call adds 1 ÷ `messages`, rounded to `digits`). */
export function callsByKind(calls: readonly AwsCall[], messages: number, digits: number) {
  const byKind: Record<string, number> = {};
  for (const call of calls) byKind[call.name] = round((byKind[call.name] ?? 0) + 1 / messages, digits);
  return byKind;
}
