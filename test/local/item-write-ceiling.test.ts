import { ConfiguredRetryStrategy } from '@smithy/util-retry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ItemWriteCeiling,
  startItemCeilingProxy,
  THROTTLING_ERROR,
  THROTTLING_REASON,
  withClientRetries,
  withItemWriteCeiling,
} from '../../local/item-write-ceiling.js';
import { createTables, LOCAL_AWS, LOCAL_TABLE_NAMES, type RunningService, startDynamoDb } from '../../local/emulators.js';
import { AccountLimits } from '../../lambda/rate-limits/account-limits.js';
import { DynamoDbLimiterStore } from '../../lambda/rate-limits/dynamodb-limiter-store.js';
import { MemoryLimiterStore } from '../support/memory-limiter-store.js';
import { RateLimiter } from '../../lambda/rate-limits/rate-limiter.js';
import { ManualClock } from '../support/clock.js';
import { createDocumentClient } from '../../lambda/shared/dynamodb.js';

const T0 = Date.UTC(2026, 10, 21, 10, 15, 0);
const consume = (minute = Math.floor(T0 / 60_000)) => ({
  minuteWindow: minute,
  dayWindow: Math.floor(T0 / 86_400_000),
  limits: 'stored' as const,
  nowMs: T0,
  keyId: 'key_a',
});

describe('ItemWriteCeiling on the in-memory store', () => {
  it('throttles an item past its writes per second, refused conditional writes included, with DynamoDB\'s error', async () => {
    const clock = new ManualClock(T0);
    const ceiling = new ItemWriteCeiling(clock, 3);
    const memory = new MemoryLimiterStore();
    await memory.provision('acct#a', { slice: { perMinute: 1, perDay: 10 }, account: { perMinute: 1, perDay: 10 }, shards: 1 });
    const store = withItemWriteCeiling(memory, ceiling);
    expect((await store.tryConsume('acct#a', consume())).counted).toBe(true);
    // Refused by its condition (the minute is spent): still a write that counts.
    expect((await store.tryConsume('acct#a', consume())).counted).toBe(false);
    expect((await store.tryConsume('acct#a', consume())).counted).toBe(false);
    const error = await store.tryConsume('acct#a', consume()).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: THROTTLING_ERROR,
      $fault: 'client',
      ThrottlingReasons: [{ reason: THROTTLING_REASON }],
    });
    // Reads are not writes; another item has its own ceiling; the next second starts afresh.
    expect(await store.get('acct#a')).toBeDefined();
    await store.provision('acct#b', { slice: { perMinute: 1, perDay: 1 }, account: { perMinute: 1, perDay: 1 }, shards: 1 });
    clock.advance(1_000);
    expect((await store.tryConsume('acct#a', consume(Math.floor(T0 / 60_000) + 1))).counted).toBe(true);
    expect(ceiling.throttled).toBe(1);
  });

  it('retries a throttled call as the SDK\'s standard strategy does, on the given sleep, then gives up', async () => {
    const clock = new ManualClock(T0);
    const ceiling = new ItemWriteCeiling(clock, 1);
    const memory = new MemoryLimiterStore();
    await memory.provision('acct#a', { slice: { perMinute: 9, perDay: 90 }, account: { perMinute: 9, perDay: 90 }, shards: 1 });
    const waits: number[] = [];
    // A sleep that moves the clock: the second attempt lands in the next second, under the ceiling.
    const sleep = async (ms: number) => {
      waits.push(ms);
      clock.advance(1_000);
    };
    const store = withClientRetries(withItemWriteCeiling(memory, ceiling), sleep, () => 0.5);
    expect((await store.tryConsume('acct#a', consume())).counted).toBe(true);
    expect((await store.tryConsume('acct#a', consume())).counted).toBe(true);
    expect(waits).toEqual([500]);
    // Never more than 3 attempts, with the SDK's throttling backoff (full jitter below 1 s, then 2 s).
    const full = withItemWriteCeiling(memory, new ItemWriteCeiling(new ManualClock(T0), 0));
    const stuck = withClientRetries(full, async (ms) => {
      waits.push(ms);
    }, () => 0.5);
    await expect(stuck.tryConsume('acct#a', consume())).rejects.toMatchObject({ name: THROTTLING_ERROR });
    expect(waits).toEqual([500, 500, 1_000]);
  });

  it('stops retrying once the client\'s retry quota is spent, as the SDK does', async () => {
    const memory = new MemoryLimiterStore();
    await memory.provision('acct#a', { slice: { perMinute: 9, perDay: 90 }, account: { perMinute: 9, perDay: 90 }, shards: 1 });
    const full = withItemWriteCeiling(memory, new ItemWriteCeiling(new ManualClock(T0), 0));
    let sleeps = 0;
    const store = withClientRetries(full, async () => {
      sleeps++;
    }, () => 0.5);
    // 500 tokens, 5 per throttled retry: 100 retries, then every call fails after one attempt.
    for (let i = 0; i < 60; i++) await expect(store.tryConsume('acct#a', consume())).rejects.toMatchObject({ name: THROTTLING_ERROR });
    expect(sleeps).toBe(100);
  });
});

describe('ItemWriteCeiling in front of dynalite (an HTTP proxy)', () => {
  let dynamodb: RunningService;
  let proxy: Awaited<ReturnType<typeof startItemCeilingProxy>>;
  const clock = new ManualClock(T0);
  const ceiling = new ItemWriteCeiling(clock, 5);

  beforeAll(async () => {
    dynamodb = await startDynamoDb();
    await createTables(dynamodb.endpoint);
    proxy = await startItemCeilingProxy({ target: dynamodb.endpoint, ceiling });
  });
  afterAll(async () => {
    await proxy?.stop();
    await dynamodb?.stop();
  });

  it('throttles an item past the ceiling: the client retries, then throws DynamoDB\'s error; other items still write', async () => {
    const calls: Array<{ operation: string; attempts: number; ok: boolean }> = [];
    // The SDK's standard strategy (its throttling classification, 3 attempts), waiting 1 ms between.
    const client = createDocumentClient({
      ...LOCAL_AWS,
      endpoint: proxy.endpoint,
      retryStrategy: new ConfiguredRetryStrategy(3, () => 1),
    });
    // Outermost (initialize): one record per call, its retries inside.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const record = (ok: boolean, metadata?: { attempts?: number }) =>
          calls.push({ operation: String(context.commandName).replace(/Command$/, ''), attempts: metadata?.attempts ?? 0, ok });
        try {
          const output = await next(args);
          record(true, (output.output as { $metadata?: { attempts?: number } }).$metadata);
          return output;
        } catch (error) {
          record(false, (error as { $metadata?: { attempts?: number } }).$metadata);
          throw error;
        }
      },
      { step: 'initialize', priority: 'high', name: 'recordCalls' },
    );
    const store = new DynamoDbLimiterStore(client, LOCAL_TABLE_NAMES.rateLimits);
    const admin = new AccountLimits(store);
    await admin.provision('acct_hot', { perMinute: 100, perDay: 1_000 }, clock.now());
    const limiter = new RateLimiter(store, clock);
    const key = { kind: 'key' as const, keyId: 'key_a', accountId: 'acct_hot', limits: { perMinute: 100, perDay: 1_000 }, ban: { threshold: 30, durationSeconds: 900 } };
    // provision wrote once (and read); 4 more writes fit this second.
    for (let i = 0; i < 4; i++) expect((await limiter.consume(key)).outcome).toBe('allowed');
    calls.length = 0;
    const error = await limiter.consume(key).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: THROTTLING_ERROR, $metadata: { attempts: 3 } });
    expect(calls).toEqual([{ operation: 'UpdateItem', attempts: 3, ok: false }]);
    // Another item, or the next second, writes again.
    await admin.provision('acct_cold', { perMinute: 100, perDay: 1_000 }, clock.now());
    clock.advance(1_000);
    expect((await limiter.consume(key)).outcome).toBe('allowed');
    client.destroy();
  });
});
