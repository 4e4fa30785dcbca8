import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTables, LOCAL_AWS, LOCAL_TABLE_NAMES, type RunningService, startDynamoDb } from '../../../local/emulators.js';
import { DynamoDbLimiterStore } from '../../../lambda/rate-limits/dynamodb-limiter-store.js';
import type { ConsumeCondition } from '../../../lambda/rate-limits/limiter-store.js';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';

// Against dynalite, the real DynamoDB protocol peer: the conditions and update expressions are
// judged by a DynamoDB implementation, and the raw item is read back with the SDK, independently.
const TABLE = LOCAL_TABLE_NAMES.rateLimits;
const MINUTE = 29_920_935;
const DAY = 20_778;
const NOW = MINUTE * 60_000 + 10_000;

let dynamodb: RunningService;
let store: DynamoDbLimiterStore;
let raw: DynamoDBDocumentClient;
let client: ReturnType<typeof createDocumentClient>;
let n = 0;
/** A fresh subject id per test. */
const fresh = (prefix = 'key') => `${prefix}#t${++n}`;

beforeAll(async () => {
  dynamodb = await startDynamoDb();
  await createTables(dynamodb.endpoint);
  client = createDocumentClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint });
  store = new DynamoDbLimiterStore(client, TABLE);
  raw = DynamoDBDocumentClient.from(new DynamoDBClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint }));
});

afterAll(async () => {
  client.destroy();
  raw.destroy();
  await dynamodb.stop();
});

const rawItem = async (id: string) =>
  (await raw.send(new GetCommand({ TableName: TABLE, Key: { id }, ConsistentRead: true }))).Item;
const putRaw = (item: Record<string, unknown>) => raw.send(new PutCommand({ TableName: TABLE, Item: item }));

const at = (minute: number, day = DAY, limits: ConsumeCondition['limits'] = 'stored'): ConsumeCondition => ({
  minuteWindow: minute,
  dayWindow: day,
  limits,
  nowMs: minute * 60_000 + 1_000,
});
const anonymousAt = (minute: number, day = DAY): ConsumeCondition => ({
  ...at(minute, day, { perMinute: 2, perDay: 3 }),
  expiresAtSeconds: 1_795_400_000,
});

describe('tryConsume on a key (stored limits)', () => {
  it('counts in counters named after the windows, and returns the new counts and the stored limits', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 3, perDay: 10 });
    const limits = { minuteLimit: 3, dayLimit: 10 };
    expect(await store.tryConsume(id, at(MINUTE))).toEqual({ minuteCount: 1, dayCount: 1, ...limits });
    expect(await store.tryConsume(id, at(MINUTE))).toEqual({ minuteCount: 2, dayCount: 2, ...limits });
    expect(await rawItem(id)).toEqual({
      id,
      status: 'active',
      minuteLimit: 3,
      dayLimit: 10,
      [`m${MINUTE}`]: 2,
      [`d${DAY}`]: 2,
      lastUsedAt: MINUTE * 60_000 + 1_000,
    });
  });

  it('refuses at the minute limit and at the day limit, changing nothing', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 2, perDay: 3 });
    await store.tryConsume(id, at(MINUTE));
    await store.tryConsume(id, at(MINUTE));
    const before = await rawItem(id);
    expect(await store.tryConsume(id, at(MINUTE))).toBeUndefined();
    expect(await store.tryConsume(id, at(MINUTE + 1))).toMatchObject({ minuteCount: 1, dayCount: 3 });
    expect(await store.tryConsume(id, at(MINUTE + 2))).toBeUndefined();
    expect(before).toMatchObject({ [`m${MINUTE}`]: 2, [`d${DAY}`]: 2 });
    expect(await rawItem(id)).toMatchObject({ [`m${MINUTE + 1}`]: 1, [`d${DAY}`]: 3 });
  });

  it('rolls the minute and the day over in the same single write, removing the previous windows\' counters', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 5, perDay: 50 });
    await store.tryConsume(id, at(MINUTE));
    await store.tryConsume(id, at(MINUTE));
    expect(await store.tryConsume(id, at(MINUTE + 1, DAY + 1))).toEqual({
      minuteCount: 1,
      dayCount: 1,
      minuteLimit: 5,
      dayLimit: 50,
    });
    const item = await rawItem(id);
    expect(item).toMatchObject({ [`m${MINUTE + 1}`]: 1, [`d${DAY + 1}`]: 1 });
    expect(item).not.toHaveProperty(`m${MINUTE}`);
    expect(item).not.toHaveProperty(`d${DAY}`);
  });

  it('refuses a revoked, a banned and a missing key, and creates no item for a missing one', async () => {
    const revoked = fresh();
    await store.activateKey(revoked, { perMinute: 5, perDay: 50 });
    await store.revokeKey(revoked);
    expect(await store.tryConsume(revoked, at(MINUTE))).toBeUndefined();

    const banned = fresh();
    await store.activateKey(banned, { perMinute: 5, perDay: 50 });
    await store.ban(banned, NOW + 60_000, NOW);
    expect(await store.tryConsume(banned, { ...at(MINUTE), nowMs: NOW })).toBeUndefined();
    // The ban ends at its time.
    const afterBan = await store.tryConsume(banned, { ...at(MINUTE + 1), nowMs: NOW + 60_000 });
    expect(afterBan).toMatchObject({ minuteCount: 1 });

    const missing = fresh();
    expect(await store.tryConsume(missing, at(MINUTE))).toBeUndefined();
    expect(await rawItem(missing)).toBeUndefined();
  });

  it('hands over tidying of counters left by an idle spell, which removes only those', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 5, perDay: 50 });
    await store.tryConsume(id, at(MINUTE, DAY));
    // Idle for 10 minutes and 3 days: the write removes only the counters of the previous windows.
    const consumed = await store.tryConsume(id, at(MINUTE + 10, DAY + 3));
    expect(consumed).toMatchObject({ minuteCount: 1, dayCount: 1 });
    expect(await rawItem(id)).toMatchObject({ [`m${MINUTE}`]: 1, [`d${DAY}`]: 1 });
    expect(consumed?.tidy).toBeTypeOf('function');
    await consumed?.tidy?.();
    const item = await rawItem(id);
    expect(item).toMatchObject({ [`m${MINUTE + 10}`]: 1, [`d${DAY + 3}`]: 1, status: 'active' });
    expect(Object.keys(item ?? {}).filter((k) => /^[md]\d+$/.test(k)).sort()).toEqual([`d${DAY + 3}`, `m${MINUTE + 10}`]);
    // Nothing left to tidy on the next request.
    expect((await store.tryConsume(id, at(MINUTE + 10, DAY + 3)))?.tidy).toBeUndefined();
  });

  it('leaves the previous window\'s counter to tidying alone (a late clock may still count there)', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 5, perDay: 50 });
    await store.tryConsume(id, at(MINUTE + 1));
    // A request with a clock a little behind counts in the previous minute again.
    await store.tryConsume(id, at(MINUTE));
    expect((await store.tryConsume(id, at(MINUTE + 1)))?.tidy).toBeUndefined();
  });

  it('accepts exactly the limit of concurrent requests', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 7, perDay: 100 });
    const results = await Promise.all(Array.from({ length: 25 }, () => store.tryConsume(id, at(MINUTE))));
    const counted = results.filter((r) => r !== undefined);
    expect(counted).toHaveLength(7);
    expect(counted.map((r) => r?.minuteCount).sort((a = 0, b = 0) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('tryConsume on an anonymous subject (explicit limits)', () => {
  it('creates the item on first use with its expiry, and compares with the given limits', async () => {
    const id = fresh('ip');
    expect(await store.tryConsume(id, anonymousAt(MINUTE))).toEqual({ minuteCount: 1, dayCount: 1 });
    expect(await store.tryConsume(id, anonymousAt(MINUTE))).toEqual({ minuteCount: 2, dayCount: 2 });
    expect(await store.tryConsume(id, anonymousAt(MINUTE))).toBeUndefined();
    expect(await store.tryConsume(id, anonymousAt(MINUTE + 1))).toEqual({ minuteCount: 1, dayCount: 3 });
    expect(await store.tryConsume(id, anonymousAt(MINUTE + 2))).toBeUndefined();
    expect(await rawItem(id)).toEqual({
      id,
      [`m${MINUTE + 1}`]: 1,
      [`d${DAY}`]: 3,
      lastUsedAt: (MINUTE + 1) * 60_000 + 1_000,
      expiresAt: 1_795_400_000,
    });
  });
});

describe('get', () => {
  it('reads the latest counters as windows and counts, and every other attribute as stored', async () => {
    const id = fresh();
    await putRaw({
      id,
      status: 'active',
      minuteLimit: 5,
      dayLimit: 50,
      [`m${MINUTE - 1}`]: 4,
      [`m${MINUTE}`]: 2,
      [`d${DAY}`]: 9,
      strikeWindowStart: 1,
      strikeCount: 2,
    });
    expect(await store.get(id)).toEqual({
      id,
      status: 'active',
      minuteLimit: 5,
      dayLimit: 50,
      minuteWindow: MINUTE,
      minuteCount: 2,
      dayWindow: DAY,
      dayCount: 9,
      strikeWindowStart: 1,
      strikeCount: 2,
    });
  });

  it('ignores the counts of the earlier item format (a stored window per kind), which nothing updates', async () => {
    const id = fresh();
    await putRaw({ id, status: 'active', minuteLimit: 5, dayLimit: 50, minuteWindow: MINUTE, minuteCount: 5, dayWindow: DAY, dayCount: 9 });
    expect(await store.get(id)).toEqual({
      id,
      status: 'active',
      minuteLimit: 5,
      dayLimit: 50,
      minuteWindow: 0,
      minuteCount: 0,
      dayWindow: 0,
      dayCount: 0,
    });
    expect(await store.tryConsume(id, at(MINUTE))).toMatchObject({ minuteCount: 1, dayCount: 1 });
    expect(await store.get(id)).toMatchObject({ minuteWindow: MINUTE, minuteCount: 1, dayWindow: DAY, dayCount: 1 });
  });

  it('shows an item without counters as empty windows, and an absent one as undefined', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 5, perDay: 50 });
    expect(await store.get(id)).toEqual({
      id,
      status: 'active',
      minuteLimit: 5,
      dayLimit: 50,
      minuteWindow: 0,
      minuteCount: 0,
      dayWindow: 0,
      dayCount: 0,
    });
    expect(await store.get(fresh())).toBeUndefined();
  });
});

describe('refund', () => {
  it('gives one request back in both windows while both are current', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 5, perDay: 50 });
    await store.tryConsume(id, at(MINUTE));
    await store.tryConsume(id, at(MINUTE));
    await store.refund(id, { minuteWindow: MINUTE, dayWindow: DAY });
    expect(await store.get(id)).toMatchObject({ minuteCount: 1, dayCount: 1 });
  });

  it('gives it back in the day only once the minute rolled over, and nothing once the day did too', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 5, perDay: 50 });
    await store.tryConsume(id, at(MINUTE));
    await store.tryConsume(id, at(MINUTE + 1));
    await store.refund(id, { minuteWindow: MINUTE, dayWindow: DAY });
    expect(await rawItem(id)).toMatchObject({ [`m${MINUTE + 1}`]: 1, [`d${DAY}`]: 1 });
    expect(await rawItem(id)).not.toHaveProperty(`m${MINUTE}`);

    await store.tryConsume(id, at(MINUTE + 2, DAY + 1));
    await store.refund(id, { minuteWindow: MINUTE + 1, dayWindow: DAY });
    expect(await rawItem(id)).toMatchObject({ [`m${MINUTE + 2}`]: 1, [`d${DAY + 1}`]: 1 });
  });

  it('never goes below zero', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 5, perDay: 50 });
    await store.tryConsume(id, at(MINUTE));
    await store.refund(id, { minuteWindow: MINUTE, dayWindow: DAY });
    await store.refund(id, { minuteWindow: MINUTE, dayWindow: DAY });
    expect(await rawItem(id)).toMatchObject({ [`m${MINUTE}`]: 0, [`d${DAY}`]: 0 });
  });
});

describe('strikes and bans', () => {
  it('addStrike counts only in the strike window it names; restartStrikes conditions on the one it saw', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 5, perDay: 50 });
    expect(await store.addStrike(id, 1_000)).toBeUndefined();
    expect(await store.restartStrikes(id, undefined, 1_000)).toBe(true);
    expect(await store.restartStrikes(id, undefined, 2_000)).toBe(false);
    expect(await store.addStrike(id, 1_000)).toBe(2);
    expect(await store.restartStrikes(id, 5, 70_000)).toBe(false);
    expect(await store.restartStrikes(id, 1_000, 70_000)).toBe(true);
    expect(await rawItem(id)).toMatchObject({ strikeWindowStart: 70_000, strikeCount: 1 });
    // No strike window is started on a subject that does not exist.
    expect(await store.restartStrikes(fresh(), undefined, 1_000)).toBe(false);
  });

  it('ban clears strikes unless a ban is running (a lost race is not an error); liftBan ends it', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 5, perDay: 50 });
    await store.restartStrikes(id, undefined, 1_000);
    await store.ban(id, 900_000, 1_000);
    await expect(store.ban(id, 999_000, 2_000)).resolves.toBeUndefined();
    expect(await rawItem(id)).toMatchObject({ banUntil: 900_000, strikeCount: 0 });
    await store.liftBan(id);
    const item = await rawItem(id);
    expect(item).toMatchObject({ strikeCount: 0 });
    expect(item).not.toHaveProperty('banUntil');
    expect(item).not.toHaveProperty('strikeWindowStart');
  });
});

describe('key lifecycle', () => {
  it('activateKey stores the limits and keeps the counts of a reactivated key', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 5, perDay: 50 });
    await store.tryConsume(id, at(MINUTE));
    await store.revokeKey(id);
    expect(await rawItem(id)).toMatchObject({ status: 'revoked', [`m${MINUTE}`]: 1 });
    await store.activateKey(id, { perMinute: 8, perDay: 80 });
    const counted = await store.tryConsume(id, at(MINUTE));
    expect(counted).toEqual({ minuteCount: 2, dayCount: 2, minuteLimit: 8, dayLimit: 80 });
  });

  it('setLimits applies to the next request, and fails on a missing item', async () => {
    const id = fresh();
    await store.activateKey(id, { perMinute: 1, perDay: 50 });
    await store.tryConsume(id, at(MINUTE));
    expect(await store.tryConsume(id, at(MINUTE))).toBeUndefined();
    await store.setLimits(id, { perMinute: 2, perDay: 50 });
    expect(await store.tryConsume(id, at(MINUTE))).toMatchObject({ minuteCount: 2, minuteLimit: 2 });
    await expect(store.setLimits(fresh(), { perMinute: 1, perDay: 1 })).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
    });
  });
});

describe('property: the in-memory store (unit tests, benchmarks) answers as the DynamoDB one does', () => {
  it('for generated sequences of consumes, refunds and limit changes on moving windows', async () => {
    const { MemoryLimiterStore } = await import('../../../lambda/rate-limits/memory-limiter-store.js');
    const fc = (await import('fast-check')).default;
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('consume' as const),
        // Mostly within a minute and a day, so that limits are met; sometimes a roll-over or an idle spell.
        minutes: fc.oneof(fc.constant(0), fc.constant(0), fc.constant(1), fc.integer({ min: 2, max: 5 })),
        days: fc.integer({ min: 0, max: 9 }).map((d) => (d === 0 ? 1 : 0)),
      }),
      fc.record({ kind: fc.constant('consume' as const), minutes: fc.constant(0), days: fc.constant(0) }),
      fc.record({ kind: fc.constant('refund' as const), minutesBack: fc.nat(1) }),
      fc.record({ kind: fc.constant('setLimits' as const), perMinute: fc.integer({ min: 1, max: 4 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(op, { minLength: 1, maxLength: 40 }), async (isKey, ops) => {
        const id = fresh(isKey ? 'key' : 'ip');
        const memory = new MemoryLimiterStore();
        const stores = [store, memory] as const;
        if (isKey) for (const s of stores) await s.activateKey(id, { perMinute: 3, perDay: 6 });
        let minute = MINUTE;
        let day = DAY;
        for (const o of ops) {
          if (o.kind === 'consume') {
            minute += o.minutes;
            day += o.days;
            const c = isKey ? at(minute, day) : anonymousAt(minute, day);
            const [real, mirror] = await Promise.all(stores.map((s) => s.tryConsume(id, c)));
            expect(mirror).toEqual(real && { ...real, tidy: undefined });
          } else if (o.kind === 'refund') {
            for (const s of stores) await s.refund(id, { minuteWindow: minute - o.minutesBack, dayWindow: day });
          } else if (isKey) {
            for (const s of stores) await s.setLimits(id, { perMinute: o.perMinute, perDay: 6 });
          }
          const [real, mirror] = await Promise.all(stores.map((s) => s.get(id)));
          const counts = (item: typeof real) =>
            item && {
              minute: item.minuteWindow === minute ? item.minuteCount : 0,
              day: item.dayWindow === day ? item.dayCount : 0,
            };
          expect(counts(mirror)).toEqual(counts(real));
        }
      }),
      { seed: 20261121, numRuns: 40 },
    );
  });
});
