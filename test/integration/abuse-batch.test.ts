import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, call, freshKey, rateHeaders, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Hostile batch bodies: each answer is a 4xx problem+json with rate-limit headers (no 5xx, no
// crash), and nothing is counted against the budget.
let platform: TestPlatform;
let key: string;
beforeAll(async () => {
  platform = await startTestPlatform();
  key = await freshKey(platform, 'business', 'batch abuse');
});
afterAll(() => platform?.stop());

const post = (body: string | Uint8Array) => call(platform, '/messages/batch', { key, method: 'POST', body });

function expectClientError(answer: Answer, status: number) {
  expect(answer.status, answer.text.slice(0, 200)).toBe(status);
  expect(answer.headers.get('content-type')).toBe('application/problem+json');
  expect(answer.headers.get('x-ratelimit-limit')).not.toBeNull();
}

async function spent(): Promise<number> {
  const { limit, remaining } = rateHeaders((await call(platform, '/messages/msg_7ZZZZZZZZZZZZZZZZZZZZZZZZZ', { key })).headers);
  return limit - remaining;
}

describe('abuse of POST /messages/batch', () => {
  it('deep nesting, in the body and inside an item, is a 400', async () => {
    const depth = 100_000;
    expectClientError(await post(`${'['.repeat(depth)}${']'.repeat(depth)}`), 400);
    const nested = `{"messages":[{"message":${'['.repeat(depth)}${']'.repeat(depth)}}]}`;
    const answer = await post(nested);
    expectClientError(answer, 400);
    expect(answer.body.errors).toEqual([{ field: 'messages[0].message', message: 'must be a string' }]);
  });

  it('100 items of 256 KiB (over 1 MiB) are a 413, and nothing is queued', async () => {
    const item = JSON.stringify({ message: 'x'.repeat(256 * 1024 - 20) });
    // 25.6 MiB: over API Gateway's own 10 MiB payload limit, so the gateway answers (its
    // REQUEST_TOO_LARGE response, without our handler's rate-limit headers).
    const answer = await call(platform, '/messages/batch', {
      key,
      method: 'POST',
      body: `{"messages":[${Array(100).fill(item).join(',')}]}`,
      checkSpec: false,
    });
    expect(answer.status).toBe(413);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(answer.body.code).toBe('payload_too_large');
    // Just over 1 MiB, under the gateway's 10 MiB: our own 413, with the headers.
    const justOver = JSON.stringify({ message: 'y'.repeat(200 * 1024) });
    expectClientError(await post(`{"messages":[${Array(6).fill(justOver).join(',')}]}`), 413);
    expect(await spent()).toBe(0);
  });

  it('odd types in items and at the top level are 400s naming the item (generated, fixed seed)', async () => {
    const odd = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string(),
      fc.array(fc.integer(), { maxLength: 3 }),
      fc.record({
        message: fc.oneof(fc.constant(null), fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 2 })),
      }),
      fc.record({ msg: fc.string() }),
      fc.record({ message: fc.constant('') }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(odd, { minLength: 1, maxLength: 5 }), fc.nat({ max: 4 }), async (items, at) => {
        const messages = [{ message: 'fine' }, ...items];
        const position = Math.min(at, messages.length - 1) === 0 ? 1 : Math.min(at, messages.length - 1);
        const answer = await post(JSON.stringify({ messages }));
        expectClientError(answer, 400);
        const fields = (answer.body.errors as Array<{ field: string }>).map((e) => e.field);
        expect(fields.every((f) => f.startsWith('messages['))).toBe(true);
        expect(fields.some((f) => f.startsWith(`messages[${position}]`))).toBe(true);
      }),
      { numRuns: 60, seed: 18 },
    );
    for (const body of ['{"messages": null}', '{"messages": "text"}', '{"messages": 7}', '[]', '"messages"', 'null']) {
      expectClientError(await post(body), 400);
    }
  }, 60_000);

  it('duplicate items are distinct messages; a duplicate key inside an item keeps the last, as JSON.parse', async () => {
    const answer = await post('{"messages":[{"message":"same"},{"message":"same"},{"message":"a","message":"b"}]}');
    expect(answer.status).toBe(202);
    const data = answer.body.data as Array<{ id: string; message: string }>;
    expect(data.map((m) => m.message)).toEqual(['same', 'same', 'b']);
    expect(new Set(data.map((m) => m.id)).size).toBe(3);
    expect(await spent()).toBe(3);
  });
});
