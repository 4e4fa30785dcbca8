import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import autocannon from 'autocannon';
import { DynamoDbMessageStore } from '../lambda/messages/dynamodb-message-store.js';
import { newMessageId } from '../lambda/messages/send-message.js';
import { SqsMessageQueue } from '../lambda/messages/sqs-message-queue.js';
import { DynamoDbLimiterStore } from '../lambda/rate-limits/dynamodb-limiter-store.js';
import { windowsAt } from '../lambda/rate-limits/windows.js';
import { DATA_PLANE } from '../lambda/shared/aws-clients.js';
import { createDocumentClient } from '../lambda/shared/dynamodb.js';
import { LOCAL_AWS, LOCAL_TABLE_NAMES } from '../local/emulators.js';
import type { LocalPlatform } from '../local/platform.js';
import { type BenchOptions, closedLoop, type Figure, NO_GOAL, percentile, round } from './lib.js';

interface Run {
  readonly concurrency: number;
  readonly post: { rps: number; p50Ms: number; p99Ms: number; accepted: number; non2xx: number; errors: number };
  readonly rawSendMessage: { rps: number; p50Ms: number; p99Ms: number; errors: number };
  /**
   * Context only: the emulator floor of a POST — its three calls and nothing else (the limiter's
   * UpdateItem, then the record's PutItem beside the SendMessage), through the same adapters.
   */
  readonly emulatorFloor: { rps: number; p50Ms: number; p99Ms: number; errors: number };
  readonly ratio: number;
}

/** Each connection sends with its own key (round robin over `keys`), as separate clients of an API do. */
async function postMessages(platform: LocalPlatform, keys: readonly string[], concurrency: number, seconds: number) {
  let connection = 0;
  const result = await autocannon({
    url: `${platform.baseUrl}/messages`,
    method: 'POST',
    connections: concurrency,
    duration: seconds,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'bench message' }),
    setupClient: (client) => {
      const key = keys[connection++ % keys.length] as string;
      client.setHeaders({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
    },
  });
  return {
    rps: round(result.requests.average, 0),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    accepted: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

type SendOne = (queueUrl: string, id: string) => Promise<unknown>;

/** The calls a POST makes, made directly: what dynalite and fauxqs alone cost per accepted message. */
function emulatorFloor(platform: LocalPlatform): { call: SendOne; destroy: () => void } {
  const documents = createDocumentClient({ ...LOCAL_AWS, endpoint: platform.endpoints.dynamodb });
  const sqs = new SQSClient({ ...DATA_PLANE, ...LOCAL_AWS, endpoint: platform.endpoints.sqs });
  const limiter = new DynamoDbLimiterStore(documents, LOCAL_TABLE_NAMES.rateLimits);
  const messages = new DynamoDbMessageStore(documents, LOCAL_TABLE_NAMES.messages);
  const queue = new SqsMessageQueue(sqs, platform.queues.queueUrl);
  let n = 0;
  const call: SendOne = async () => {
    const now = Date.now();
    const windows = windowsAt(now);
    const id = newMessageId(now);
    const createdAt = new Date(now).toISOString();
    // One subject per 64 calls in flight at most, as the POSTs use one key per connection.
    await limiter.tryConsume(`ip#bench-floor-${n++ % 64}`, {
      minuteWindow: windows.minute,
      dayWindow: windows.day,
      limits: { perMinute: 1_000_000_000, perDay: 1_000_000_000 },
      nowMs: now,
    });
    await Promise.all([
      messages.create({
        id,
        accountId: 'acct_bench',
        keyId: 'key_bench',
        message: 'bench message',
        status: 'queued',
        createdAt,
        expiresAt: Math.floor(now / 1000) + 86_400,
      }),
      queue.send({ v: 1, id, accountId: 'acct_bench', createdAt }),
    ]);
  };
  return {
    call,
    destroy: () => {
      documents.destroy();
      sqs.destroy();
    },
  };
}

/** A closed loop of `sendOne` (a raw SendMessage, or the emulator floor's three calls): rate and latency. */
async function closedLoopRate(platform: LocalPlatform, concurrency: number, seconds: number, sendOne: SendOne) {
  let i = 0;
  const { latencies, elapsedMs, errors } = await closedLoop(seconds * 1000, concurrency, async () => {
    await sendOne(platform.queues.queueUrl, `msg_bench_${i++}`);
  });
  return {
    rps: round(latencies.length / (elapsedMs / 1000), 0),
    p50Ms: round(percentile(latencies, 50), 1),
    p99Ms: round(percentile(latencies, 99), 1),
    errors,
  };
}

const envelope = (id: string) => JSON.stringify({ v: 1, id, accountId: 'acct_bench', createdAt: new Date().toISOString() });

/** POST /messages through the local platform vs raw SendMessage to its fauxqs, at each concurrency. */
export async function localE2e(platform: LocalPlatform, options: BenchOptions): Promise<Figure> {
  const seconds = options.smoke ? 1 : 6;
  const concurrencies = [1, 8, 32];
  // One key per connection: a real API's load comes from many keys. With one key, every request
  // would update the same limiter item, which dynalite serialises under a per-item lock; that
  // measures the emulator's lock, not the request path.
  const account = platform.demoAccounts.enterprise;
  const keys = [platform.demoKeys.enterprise];
  while (keys.length < Math.max(...concurrencies)) keys.push(await platform.issueKey(account, `bench-${keys.length}`));
  // The baseline is SendMessage with the AWS SDK v3 client, what a caller of SQS would use.
  const sdk = new SQSClient({ ...LOCAL_AWS, endpoint: platform.endpoints.sqs });
  const attributes = (id: string) => ({ messageId: { DataType: 'String', StringValue: id } });
  const viaSdk: SendOne = (queueUrl, id) =>
    sdk.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: envelope(id), MessageAttributes: attributes(id) }),
    );
  const floor = emulatorFloor(platform);
  const runs: Run[] = [];
  try {
    // Warm-up: JIT, sockets, the authorizer's key cache (every key).
    await postMessages(platform, keys, keys.length, 1);
    await closedLoopRate(platform, 4, 1, viaSdk);
    await closedLoopRate(platform, 4, 1, floor.call);
    for (const concurrency of concurrencies) {
      const post = await postMessages(platform, keys, concurrency, seconds);
      const raw = await closedLoopRate(platform, concurrency, seconds, viaSdk);
      const floorRun = await closedLoopRate(platform, concurrency, seconds, floor.call);
      runs.push({
        concurrency,
        post,
        rawSendMessage: raw,
        emulatorFloor: floorRun,
        ratio: round(post.rps / raw.rps, 3),
      });
    }
  } finally {
    sdk.destroy();
    floor.destroy();
  }
  const refused = runs.reduce((n, r) => n + r.post.non2xx + r.post.errors, 0);
  const worst = Math.min(...runs.map((r) => r.ratio));
  const perConcurrency = runs
    .map(
      (r) =>
        `c${r.concurrency} ${round(r.ratio, 2)} (${r.post.rps} vs ${r.rawSendMessage.rps} req/s, p50 ${r.post.p50Ms}/${r.rawSendMessage.p50Ms} ms, p99 ${r.post.p99Ms}/${r.rawSendMessage.p99Ms} ms)`,
    )
    .join('; ');
  const floorContext = runs
    .map((r) => `c${r.concurrency} ${r.emulatorFloor.rps} req/s (${round(r.emulatorFloor.rps / r.rawSendMessage.rps, 2)}×)`)
    .join(', ');
  return {
    figure: 'local-e2e (POST /messages req/s ÷ raw SendMessage req/s, worst concurrency)',
    value:
      `${round(worst, 2)}× — ${perConcurrency}${refused ? `; ${refused} POSTs not 2xx` : ''}` +
      ` (context: a POST's three emulator calls alone, without the platform: ${floorContext})`,
    goal: NO_GOAL,
    pass: null,
    details: { secondsPerRun: seconds, keys: 'one per connection (Enterprise plan)', runs },
  };
}
