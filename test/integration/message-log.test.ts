import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, freshKey, send, startTestPlatform, type TestPlatform } from '../support/platform.js';

// GET /messages on the local platform: the account index on dynalite, the cursor, the 400s.
describe('the message log (GET /messages)', () => {
  let platform: TestPlatform;
  let key: string;
  const sent: string[] = [];
  beforeAll(async () => {
    platform = await startTestPlatform();
    key = await freshKey(platform, 'business', 'message-log');
    // 250 messages in five batches of 50: each batch shares one createdAt (the clock stands still
    // within it), so the pages cross runs of equal sort keys.
    for (let batch = 0; batch < 5; batch++) {
      const answer = await call(platform, '/messages/batch', {
        key,
        body: { messages: Array.from({ length: 50 }, (_, i) => ({ message: `log ${batch * 50 + i}` })) },
      });
      expect(answer.status).toBe(202);
      sent.push(...(answer.body.data as Array<{ id: string }>).map((m) => m.id));
      platform.clock.advance(7);
    }
  });
  afterAll(() => platform?.stop());

  const page = (query: string, withKey = key) => call(platform, `/messages${query}`, { key: withKey });

  it('pages through 250 messages, newest first, with no duplicates or gaps while new ones arrive', async () => {
    const seen: string[] = [];
    const createdAts: string[] = [];
    const arrived: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const answer = await page(`?limit=40${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(answer.status).toBe(200);
      const data = answer.body.data as Array<{ id: string; createdAt: string }>;
      seen.push(...data.map((m) => m.id));
      createdAts.push(...data.map((m) => m.createdAt));
      cursor = answer.body.nextCursor as string | null;
      pages += 1;
      // New messages keep arriving between pages (newer than everything paged so far).
      platform.clock.advance(3);
      arrived.push((await send(platform, key, `arrived during page ${pages}`)).body.id as string);
    } while (cursor !== null && pages < 20);
    const firstPageArrivals = seen.filter((id) => arrived.includes(id));
    expect(firstPageArrivals).toEqual([]);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...sent].sort());
    expect(pages).toBe(7);
    expect([...createdAts].sort().reverse()).toEqual(createdAts);
    // A fresh first page shows the arrivals first.
    const fresh = await page(`?limit=${arrived.length}`);
    expect((fresh.body.data as Array<{ id: string }>).map((m) => m.id).sort()).toEqual([...arrived].sort());
  });

  it('shows only the key\'s account, filters by status and defaults to 50', async () => {
    const other = await freshKey(platform, 'pro', 'message-log-other');
    const mine = await page('');
    expect((mine.body.data as unknown[]).length).toBe(50);
    const theirs = await page('', other);
    expect(theirs.body).toEqual({ data: [], nextCursor: null });
    const failed = await page('?status=failed&limit=100');
    expect(failed.status).toBe(200);
    expect(failed.body.data).toEqual([]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['status=done', 'status'],
    ['cursor=not-a-cursor', 'cursor'],
  ])('answers ?%s with 400 invalid_field naming %s, with the rate-limit headers', async (query, field) => {
    const answer = await page(`?${query}`);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(answer.body).toMatchObject({ code: 'invalid_field', errors: [{ field }] });
    expect(answer.headers.get('x-ratelimit-limit')).not.toBeNull();
  });

  it('refuses another account\'s cursor, and a cursor made for another status filter', async () => {
    const first = await page('?limit=2');
    const cursor = encodeURIComponent(first.body.nextCursor as string);
    const other = await freshKey(platform, 'pro', 'message-log-thief');
    expect((await page(`?cursor=${cursor}`, other)).status).toBe(400);
    expect((await page(`?cursor=${cursor}&status=queued`)).status).toBe(400);
    expect((await page(`?cursor=${cursor}`)).status).toBe(200);
  });

  it('answers 401 without a key', async () => {
    const answer = await call(platform, '/messages');
    expect(answer.status).toBe(401);
  });
});
