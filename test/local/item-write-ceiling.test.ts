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
import { MemoryLimiterStore } from '../../lambda/rate-limits/memory-limiter-store.js';
import { RateLimiter } from '../../lambda/rate-limits/rate-limiter.js';
import { ManualClock } from '../../lambda/shared/clock.js';
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
      $retryable: true,
      $details: { ThrottlingReasons: [{ reason: THROTTLING_REASON }] },
    });
    // Reads are not writes; another item has its own ceiling; the next second starts afresh.
    expect(await store.get('acct#a')).toBeDefined();
    await store.provision('acct#b', { slice: { perMinute: 1, perDay: 1 }, account: { perMinute: 1, perDay: 1 }, shards: 1 });
    clock.advance(1_000);
    expect((await store.tryConsume('acct#a', consume(Math.floor(T0 / 60_000) + 1))).counted).toBe(true);
    expect(ceiling.throttled).toBe(1);
  });

  it('retries a throttled call as the platform\'s client does, on the given sleep, then gives up', async () => {
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
    expect(waits).toEqual([50]);
    // Never more than 3 attempts, with the client's backoff (full jitter below 100, 200 ms for throttling).
    const full = withItemWriteCeiling(memory, new ItemWriteCeiling(new ManualClock(T0), 0));
    const stuck = withClientRetries(full, async (ms) => {
      waits.push(ms);
    }, () => 0.5);
    await expect(stuck.tryConsume('acct#a', consume())).rejects.toMatchObject({ name: THROTTLING_ERROR });
    expect(waits).toEqual([50, 50, 100]);
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
    const client = createDocumentClient({
      ...LOCAL_AWS,
      endpoint: proxy.endpoint,
      retryBaseMs: 1,
      onCall: (c) => calls.push({ operation: c.operation, attempts: c.attempts, ok: c.ok }),
    });
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
