import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTables, LOCAL_AWS, LOCAL_TABLE_NAMES, type RunningService, startDynamoDb } from '../../../local/emulators.js';
import { DynamoDbLimiterStore } from '../../../lambda/rate-limits/dynamodb-limiter-store.js';
import type { LimiterStore } from '../../../lambda/rate-limits/limiter-store.js';
import { MemoryLimiterStore } from '../../support/memory-limiter-store.js';
import { createDocumentClient } from '../../../lambda/shared/dynamodb.js';
import { DAY } from './store-contract.js';

// The in-memory store stands in for DynamoDB in the limiter's unit and property tests and in the
// benchmarks: here generated sequences of every operation run on both, and after each step the
// answers and the raw items must be the same.
const TABLE = LOCAL_TABLE_NAMES.rateLimits;
let dynamodb: RunningService;
let client: ReturnType<typeof createDocumentClient>;
let raw: DynamoDBDocumentClient;

beforeAll(async () => {
  dynamodb = await startDynamoDb();
  await createTables(dynamodb.endpoint);
  client = createDocumentClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint });
  raw = DynamoDBDocumentClient.from(new DynamoDBClient({ ...LOCAL_AWS, endpoint: dynamodb.endpoint }));
});
afterAll(async () => {
  client.destroy();
  raw.destroy();
  await dynamodb.stop();
});

const KEYS = ['key_a', 'key_b', 'key_c'];
const key = fc.constantFrom(...KEYS);
/** The last two minutes of a day and the first three of the next: both windows roll over within a sequence. */
const FIRST_MINUTE = (DAY + 1) * 1440 - 2;
const minute = fc.integer({ min: 0, max: 4 }).map((m) => FIRST_MINUTE + m);
const now = (m: number) => m * 60_000 + 30_000;
const dayOf = (m: number) => Math.floor((m * 60_000) / 86_400_000);

const operation = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('consume' as const), keyId: key, minute }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('anonymous' as const), minute }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('provision' as const),
      slice: fc.record({ perMinute: fc.integer({ min: 0, max: 4 }), perDay: fc.integer({ min: 0, max: 9 }) }),
      shards: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('marker' as const),
      keyId: key,
      marker: fc.constantFrom('ban' as const, 'revoked' as const),
      minute,
      lengthMinutes: fc.integer({ min: 0, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const), keyId: key, marker: fc.constantFrom('ban' as const, 'revoked' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('batch' as const),
      keyId: key,
      minute,
      units: fc.integer({ min: 2, max: 5 }),
      // Sometimes the shard's slice, sometimes not (a caller that predates a plan change).
      slice: fc.record({ perMinute: fc.integer({ min: 0, max: 6 }), perDay: fc.integer({ min: 0, max: 9 }) }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('refund' as const), keyId: key, minute, units: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('adjust' as const), minute, amount: fc.integer({ min: -2, max: 2 }) }) },
);
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

/** Applies one operation (and the tidying a counting write hands over); returns what the store answered. */
async function apply(store: LimiterStore, id: string, anonymousId: string, o: Operation): Promise<unknown> {
  switch (o.op) {
    case 'consume': {
      const result = await store.tryConsume(id, {
        minuteWindow: o.minute,
        dayWindow: dayOf(o.minute),
        limits: 'stored',
        nowMs: now(o.minute),
        keyId: o.keyId,
      });
      if (result.counted) await result.tidy?.();
      return result.counted ? { counted: true, item: result.item } : { counted: false };
    }
    case 'batch': {
      const result = await store.tryConsume(id, {
        minuteWindow: o.minute,
        dayWindow: dayOf(o.minute),
        limits: 'stored',
        nowMs: now(o.minute),
        keyId: o.keyId,
        batch: { units: o.units, slice: o.slice },
      });
      if (result.counted) await result.tidy?.();
      return result.counted ? { counted: true, item: result.item } : { counted: false };
    }
    case 'anonymous': {
      const result = await store.tryConsume(anonymousId, {
        minuteWindow: o.minute,
        dayWindow: dayOf(o.minute),
        limits: { perMinute: 2, perDay: 5 },
        nowMs: now(o.minute),
        expiresAtSeconds: 1_900_000_000,
      });
      if (result.counted) await result.tidy?.();
      return result.counted;
    }
    case 'provision':
      return store.provision(id, { slice: o.slice, account: { perMinute: 9, perDay: 99 }, shards: o.shards });
    case 'marker':
      return store.setKeyMarker(id, o.keyId, o.marker, now(o.minute) + o.lengthMinutes * 60_000, now(o.minute));
    case 'clear':
      return store.clearKeyMarker(id, o.keyId, o.marker);
    case 'refund':
      return store.refund(id, { minuteWindow: o.minute, dayWindow: dayOf(o.minute), keyId: o.keyId, units: o.units });
    case 'adjust':
      return store.adjustCounters(id, { [`m${o.minute}`]: o.amount, [`d${dayOf(o.minute)}`]: o.amount });
  }
}

describe('MemoryLimiterStore and DynamoDbLimiterStore (dynalite) behave alike', () => {
  it('answer and store the same, step by step, over generated sequences of operations', async () => {
    expect([dayOf(FIRST_MINUTE), dayOf(FIRST_MINUTE + 4)]).toEqual([DAY, DAY + 1]);
    const dynamo = new DynamoDbLimiterStore(client, TABLE);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 25 }), async (operations) => {
        run++;
        const id = `acct#diff${run}`;
        const anonymousId = `ip#diff${run}`;
        const memory = new MemoryLimiterStore();
        for (const [step, o] of operations.entries()) {
          const expected = await apply(memory, id, anonymousId, o);
          const actual = await apply(dynamo, id, anonymousId, o);
          expect(actual, `step ${step}: ${JSON.stringify(o)}`).toEqual(expected);
          for (const item of [id, anonymousId]) {
            const read = new GetCommand({ TableName: TABLE, Key: { id: item }, ConsistentRead: true });
            const stored = (await raw.send(read)).Item;
            expect(stored, `${item} after step ${step}: ${JSON.stringify(o)}`).toEqual(memory.raw(item));
          }
        }
      }),
      { numRuns: 40 },
    );
    // 40 runs against dynalite take about 4 s alone; on a busy 2-core CI box, more than the unit default of 5 s.
  }, 60_000);
});
