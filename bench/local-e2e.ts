import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import autocannon from 'autocannon';
import { LOCAL_AWS } from '../local/emulators.js';
import type { LocalPlatform } from '../local/platform.js';
import { type BenchOptions, closedLoop, type Figure, percentile, round } from './lib.js';

interface Run {
  readonly concurrency: number;
  readonly post: { rps: number; p50Ms: number; p99Ms: number; accepted: number; non2xx: number; errors: number };
  readonly rawSendMessage: { rps: number; p50Ms: number; p99Ms: number; errors: number };
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

async function rawSendMessage(platform: LocalPlatform, concurrency: number, seconds: number) {
  const client = new SQSClient({ ...LOCAL_AWS, endpoint: platform.endpoints.sqs });
  let i = 0;
  try {
    const { latencies, elapsedMs, errors } = await closedLoop(seconds * 1000, concurrency, async () => {
      const id = `msg_bench_${i++}`;
      await client.send(
        new SendMessageCommand({
          QueueUrl: platform.queues.queueUrl,
          MessageBody: JSON.stringify({ v: 1, id, accountId: 'acct_bench', createdAt: new Date().toISOString() }),
          MessageAttributes: { messageId: { DataType: 'String', StringValue: id } },
        }),
      );
    });
    return {
      rps: round(latencies.length / (elapsedMs / 1000), 0),
      p50Ms: round(percentile(latencies, 50), 1),
      p99Ms: round(percentile(latencies, 99), 1),
      errors,
    };
  } finally {
    client.destroy();
  }
}

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
  const runs: Run[] = [];
  // Warm-up: JIT, sockets, the authorizer's key cache (every key).
  await postMessages(platform, keys, keys.length, 1);
  await rawSendMessage(platform, 4, 1);
  for (const concurrency of concurrencies) {
    const post = await postMessages(platform, keys, concurrency, seconds);
    const raw = await rawSendMessage(platform, concurrency, seconds);
    runs.push({ concurrency, post, rawSendMessage: raw, ratio: round(post.rps / raw.rps, 3) });
  }
  const refused = runs.reduce((n, r) => n + r.post.non2xx + r.post.errors, 0);
  const worst = Math.min(...runs.map((r) => r.ratio));
  const perConcurrency = runs
    .map(
      (r) =>
        `c${r.concurrency} ${round(r.ratio, 2)} (${r.post.rps} vs ${r.rawSendMessage.rps} req/s, p50 ${r.post.p50Ms}/${r.rawSendMessage.p50Ms} ms, p99 ${r.post.p99Ms}/${r.rawSendMessage.p99Ms} ms)`,
    )
    .join('; ');
  return {
    figure: 'local-e2e (POST /messages req/s ÷ raw SendMessage req/s, worst concurrency)',
    value: `${round(worst, 2)}× — ${perConcurrency}${refused ? `; ${refused} POSTs not 2xx` : ''}`,
    goal: '≥ 0.5×',
    pass: worst >= 0.5 && refused === 0,
    details: { secondsPerRun: seconds, keys: 'one per connection (Enterprise plan)', runs },
  };
}
