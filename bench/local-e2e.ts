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
import { type BenchOptions, type Figure, NO_GOAL, percentile, round, UNLIMITED } from './lib.js';

/** Each connection sends with its own key (round robin over `keys`), as separate clients of an API do. */
async function postMessages(platform: LocalPlatform, keys: readonly string[], concurrency: number, seconds: number) {
  let connection = 0;
  const result = await autocannon({
    url: `${platform.baseUrl}/messages`,
    method: 'POST',
    connections: concurrency,
    duration: seconds,
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

type SendOne = (id: string) => Promise<unknown>;

/** The emulator floor of a POST, context only: its three calls alone, through the same adapters. */
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
      limits: UNLIMITED,
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
    destroy: () => [documents, sqs].forEach((client) => client.destroy()),
  };
}

/** `sendOne` for `seconds`, `concurrency` in flight, each awaited before the next: rate and latency. */
async function closedLoopRate(concurrency: number, seconds: number, sendOne: SendOne) {
  const latencies: number[] = [];
  let errors = 0;
  let i = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await sendOne(`msg_bench_${i++}`);
          latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  return {
    rps: round(latencies.length / ((performance.now() - start) / 1000), 0),
    p50Ms: round(percentile(latencies, 50), 1),
    p99Ms: round(percentile(latencies, 99), 1),
    errors,
  };
}

/** POST /messages through the local platform vs raw SendMessage to its fauxqs, at each concurrency. */
export async function localE2e(platform: LocalPlatform, options: BenchOptions): Promise<Figure> {
  const seconds = options.smoke ? 1 : 6;
  const concurrencies = [1, 8, 32];
  // One key per connection, as a real API's load: one key's limiter item would measure dynalite's
  // per-item lock, not the request path.
  const account = platform.demoAccounts.enterprise;
  const keys = [platform.demoKeys.enterprise];
  while (keys.length < Math.max(...concurrencies)) keys.push(await platform.issueKey(account, `bench-${keys.length}`));
  // The baseline is SendMessage with the AWS SDK v3 client, what a caller of SQS would use.
  const sdk = new SQSClient({ ...LOCAL_AWS, endpoint: platform.endpoints.sqs });
  const viaSdk: SendOne = (id) =>
    sdk.send(
      new SendMessageCommand({
        QueueUrl: platform.queues.queueUrl,
        MessageBody: JSON.stringify({ v: 1, id, accountId: 'acct_bench', createdAt: new Date().toISOString() }),
        MessageAttributes: { messageId: { DataType: 'String', StringValue: id } },
      }),
    );
  const floor = emulatorFloor(platform);
  const at = async (concurrency: number) => {
    const post = await postMessages(platform, keys, concurrency, seconds);
    const rawSendMessage = await closedLoopRate(concurrency, seconds, viaSdk);
    const emulatorFloor = await closedLoopRate(concurrency, seconds, floor.call);
    return { concurrency, post, rawSendMessage, emulatorFloor, ratio: round(post.rps / rawSendMessage.rps, 3) };
  };
  const runs: Array<Awaited<ReturnType<typeof at>>> = [];
  try {
    // Warm-up: JIT, sockets, the authorizer's key cache (every key).
    await postMessages(platform, keys, keys.length, 1);
    await closedLoopRate(4, 1, viaSdk);
    await closedLoopRate(4, 1, floor.call);
    for (const concurrency of concurrencies) runs.push(await at(concurrency));
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
