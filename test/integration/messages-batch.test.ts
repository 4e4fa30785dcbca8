import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  call,
  eventually,
  freshKey,
  rateHeaders,
  send,
  startTestPlatform,
  type TestPlatform,
} from '../support/platform.js';

// POST /messages/batch against the local platform over real HTTP: every rule of its contract.
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.stop());

type Extra = { headers?: Record<string, string>; contentType?: string | null };
const batch = (key: string | undefined, body: unknown, extra: Extra = {}) =>
  call(platform, '/messages/batch', {
    ...(key === undefined ? {} : { key }),
    method: 'POST',
    body: typeof body === 'string' ? body : (body as Record<string, unknown>),
    ...extra,
  });
const messagesOf = (texts: readonly string[]) => ({ messages: texts.map((message) => ({ message })) });
const texts = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);
/** What the account has spent this minute, read from a GET's headers (a GET spends nothing). */
async function spent(key: string): Promise<number> {
  const read = await call(platform, '/messages/msg_7ZZZZZZZZZZZZZZZZZZZZZZZZZ', { key });
  const { limit, remaining } = rateHeaders(read.headers);
  return limit - remaining;
}
type Queued = { id: string; message: string; status: string; createdAt: string };
const dataOf = (answer: Answer) => answer.body.data as Queued[];

describe('POST /messages/batch', () => {
  // Processed after the batch's settle delay (BATCH_SETTLE_SECONDS in lambda/messages/sqs-message-queue.ts).
  it('queues every message in request order, each readable and processed like a single send', async () => {
    const key = await freshKey(platform, 'free', 'batch ok');
    const sent = texts(12, 'order');
    const answer = await batch(key, messagesOf(sent));
    expect(answer.status).toBe(202);
    const data = dataOf(answer);
    expect(data.map((m) => m.message)).toEqual(sent);
    expect(data.every((m) => m.status === 'queued')).toBe(true);
    expect(new Set(data.map((m) => m.id)).size).toBe(12);
    // A batch of N counts N; the headers describe the budget after them.
    expect(rateHeaders(answer.headers)).toMatchObject({ limit: 60, remaining: 48 });
    const read = await call(platform, `/messages/${data[5]?.id}`, { key });
    expect(read.body).toMatchObject({ id: data[5]?.id, message: 'order 5' });
    await eventually(async () => {
      const states = await Promise.all(data.map(async (m) => (await call(platform, `/messages/${m.id}`, { key })).body.status));
      return states.every((s) => s === 'processed') ? true : undefined;
    }, 25_000, 1_000);
  }, 40_000);

  it('accepts duplicate items as distinct messages, and exactly 100', async () => {
    const key = await freshKey(platform, 'pro', 'batch 100');
    const answer = await batch(key, messagesOf(Array(100).fill('same text')));
    expect(answer.status).toBe(202);
    expect(new Set(dataOf(answer).map((m) => m.id)).size).toBe(100);
    expect(rateHeaders(answer.headers).remaining).toBe(200);
  });

  it('401 without a valid key, with the anonymous budget\'s headers', async () => {
    const answer = await batch(undefined, messagesOf(['x']));
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('invalid_api_key');
    expect(answer.headers.get('ratelimit-policy')).toBe('"minute";q=60;w=60, "day";q=10000;w=86400');
  });

  it('400 names every bad item, with the code of the first fault, and spends nothing', async () => {
    const key = await freshKey(platform, 'free', 'batch bad');
    const answer = await batch(key, {
      messages: [{ message: 'fine' }, { message: '' }, 'text', { message: 'ok', priority: 1 }, { message: 7 }],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('invalid_field');
    expect(answer.body.errors).toEqual([
      { field: 'messages[1].message', message: 'must not be empty' },
      { field: 'messages[2]', message: 'must be an object such as {"message": "Hello"}' },
      { field: 'messages[3].priority', message: 'is not a known field (only "message" is accepted)' },
      { field: 'messages[4].message', message: 'must be a string' },
    ]);
    expect(await spent(key)).toBe(0);
  });

  it('400 for the top level: messages missing, empty, over 100, unknown fields; and the media type', async () => {
    const key = await freshKey(platform, 'free', 'batch top');
    const cases: Array<[unknown, string, string]> = [
      [{}, 'missing_field', 'messages'],
      [{ messages: [] }, 'invalid_field', 'messages'],
      [messagesOf(texts(101, 'x')), 'invalid_field', 'messages'],
      [{ messages: [{ message: 'a' }], urgent: true }, 'unknown_field', 'urgent'],
      [{ messages: { message: 'a' } }, 'invalid_field', 'messages'],
    ];
    for (const [body, code, field] of cases) {
      const answer = await batch(key, body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.body.code).toBe(code);
      expect((answer.body.errors as Array<{ field: string }>)[0]?.field).toBe(field);
    }
    const plain = await batch(key, JSON.stringify(messagesOf(['a'])), { contentType: 'text/plain' });
    expect(plain.body.code).toBe('unsupported_media_type');
    expect(await spent(key)).toBe(0);
  });

  it('413 for a body over 1 MiB, and for an item over the single-send limit', async () => {
    const key = await freshKey(platform, 'free', 'batch big');
    const big = await batch(key, messagesOf(Array(5).fill('x'.repeat(220 * 1024))));
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
    const item = await batch(key, messagesOf(['small', 'y'.repeat(256 * 1024)]));
    expect(item.status).toBe(413);
    expect(item.body.errors).toEqual([{ field: 'messages[1].message', message: expect.stringMatching(/^is 262158 bytes/) }]);
    expect(await spent(key)).toBe(0);
  });

  it('429 for the whole batch when fewer than N are left: nothing counted, the detail says how many remain', async () => {
    const key = await freshKey(platform, 'free', 'batch 429');
    expect((await batch(key, messagesOf(texts(20, 'first')))).status).toBe(202);
    const refused = await batch(key, messagesOf(texts(41, 'second')));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'rate_limited', window: 'minute', remaining: 40, requested: 41 });
    expect(refused.body.detail).toContain('40 remain');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(rateHeaders(refused.headers).remaining).toBe(40);
    expect(await spent(key)).toBe(20);
    // What remains still fits, exactly.
    const rest = await batch(key, messagesOf(texts(40, 'rest')));
    expect(rest.status).toBe(202);
    expect(rateHeaders(rest.headers).remaining).toBe(0);
  });

  it('429 before 400: a spent account gets 429 for a bad batch too', async () => {
    const key = await freshKey(platform, 'free', 'batch order');
    expect((await batch(key, messagesOf(texts(60, 'fill')))).status).toBe(202);
    const answer = await batch(key, { messages: [{ message: '' }] });
    expect(answer.status).toBe(429);
  });

  it('Idempotency-Key: the same body replays the same ids and queues nothing again; another body is 409', async () => {
    const key = await freshKey(platform, 'free', 'batch idem');
    const headers = { 'Idempotency-Key': `batch-${Date.now()}` };
    const first = await batch(key, messagesOf(['a', 'b', 'c']), { headers });
    expect(first.status).toBe(202);
    const again = await batch(key, messagesOf(['a', 'b', 'c']), { headers });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await spent(key)).toBe(3);
    const other = await batch(key, messagesOf(['a', 'b']), { headers });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('idempotency_conflict');
    // A key used for a single send is another body for a batch.
    const single = await send(platform, key, 'a', { headers: { 'Idempotency-Key': 'shared-key' } });
    expect(single.status).toBe(202);
    expect((await batch(key, messagesOf(['a']), { headers: { 'Idempotency-Key': 'shared-key' } })).status).toBe(409);
  });

  it('405 with Allow: POST for other methods on /messages/batch', async () => {
    const key = await freshKey(platform, 'free', 'batch 405');
    const answer = await call(platform, '/messages/batch', { key, method: 'GET' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
  });
});
