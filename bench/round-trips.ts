import type { LocalPlatform } from '../local/platform.js';
import { ManualClock } from '../test/support/clock.js';
import { sequentialDepth } from './aws-meter.js';
import { callsByKind } from './cost-arithmetic.js';
import { batchEvent, lambdaContext, sendEvent } from './events.js';
import type { BenchOptions, Figure } from './lib.js';
import { meteredHandlers } from './metered-handlers.js';

/** AWS calls per accepted POST on the metered handlers: bench/README.md, "round-trips". */
export async function roundTrips(platform: LocalPlatform, options: BenchOptions): Promise<Figure> {
  // The handler's clock is moved by hand (bench/README.md, "round-trips").
  const clock = new ManualClock(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
  const metered = meteredHandlers(platform, clock);
  const { calls, send: handler } = metered;
  try {
    const account = platform.demoAccounts.enterprise;
    const { key } = await platform.accountService.createKey(account.accountId, 'bench round trips');

    const count = options.smoke ? 5 : 50;
    let sent = 0;
    const send = async (withIdempotencyKey: boolean) => {
      const i = sent++;
      const idempotencyKey = withIdempotencyKey ? `bench-${Date.now()}-${i}-${Math.random()}` : undefined;
      const event = sendEvent(i, key.keyId, account.accountId, idempotencyKey);
      calls.length = 0;
      const result = await handler(event, lambdaContext(`rt-${i}`));
      if (result.statusCode !== 202) throw new Error(`round trips: POST answered ${result.statusCode}: ${result.body}`);
      return {
        total: calls.length,
        depth: sequentialDepth(calls),
        // In the order the calls started (the meter records them as they end).
        shape: [...calls]
          .sort((a, b) => a.start - b.start)
          .map((c) => c.name)
          .join(', '),
      };
    };
    const measure = async (withIdempotencyKey: boolean) => {
      // After 5 idle minutes, then the first request of a new minute, then the steady state in it.
      clock.advance(5 * 60_000);
      const afterIdle = await send(withIdempotencyKey);
      clock.advance(60_000);
      const rollover = await send(withIdempotencyKey);
      const steady = [];
      for (let i = 0; i < count; i++) steady.push(await send(withIdempotencyKey));
      const totals = steady.map((one) => one.total);
      const shapes: Record<string, number> = {};
      for (const { shape } of steady) shapes[shape] = (shapes[shape] ?? 0) + 1;
      return {
        steady: {
          totalCalls: { ...range(totals), mean: totals.reduce((a, b) => a + b, 0) / count },
          sequentialDepth: range(steady.map((one) => one.depth)),
          shapes,
        },
        firstOfMinute: rollover,
        afterIdle,
      };
    };
    /** `runs` batches of 100 messages (POST /messages/batch): AWS calls per batch and their sequential depth. */
    const batchOf100 = async (runs: number) => {
      const totals: number[] = [];
      const depths: number[] = [];
      let shape = '';
      for (let r = 0; r < runs; r++) {
        // A minute of its own for each batch: the key's budget never refuses one.
        clock.advance(60_000);
        const event = batchEvent(10_000 + r, key.keyId, account.accountId);
        calls.length = 0;
        const result = await metered.sendBatch(event, lambdaContext(`rt-batch-${r}`));
        if (result.statusCode !== 202) throw new Error(`round trips: batch answered ${result.statusCode}: ${result.body}`);
        totals.push(calls.length);
        depths.push(sequentialDepth(calls));
        shape = Object.entries(callsByKind(calls, 1, 0)).map(([name, n]) => `${n} × ${name}`).join(', ');
      }
      return { runs, total: range(totals), depth: range(depths), shape };
    };
    // The key's first request ever also rolls its windows over: outside the figures.
    await send(false);
    const plain = await measure(false);
    const idem = await measure(true);
    const batch = await batchOf100(options.smoke ? 2 : 5);
    // Strict: every accepted message counts, the first of each minute included.
    const deepest = (m: typeof plain) =>
      Math.max(m.steady.sequentialDepth.max, m.firstOfMinute.depth, m.afterIdle.depth);
    const pass = deepest(plain) <= 2 && deepest(idem) <= 3 && batch.depth.max <= 2;
    const way = (m: typeof plain) =>
      `${m.steady.totalCalls.max} / ${m.steady.sequentialDepth.max}, ` +
      `first of a minute ${m.firstOfMinute.total} / ${m.firstOfMinute.depth}, ` +
      `after 5 idle minutes ${m.afterIdle.total} / ${m.afterIdle.depth}`;
    return {
      figure: 'round-trips (AWS calls per accepted POST: total / sequential depth)',
      value:
        `without Idempotency-Key ${way(plain)}; with ${way(idem)} (steady state: max over ${count} requests each); ` +
        `batch of 100 without Idempotency-Key ${batch.total.max} / ${batch.depth.max} (${batch.shape})`,
      goal: 'sequential ≤ 2 without, ≤ 3 with Idempotency-Key (every accepted message); batch of 100 ≤ 2',
      pass,
      details: { requests: count, withoutIdempotencyKey: plain, withIdempotencyKey: idem, batchOf100: batch },
    };
  } finally {
    metered.destroy();
  }
}

const range = (values: readonly number[]) => ({ min: Math.min(...values), max: Math.max(...values) });
