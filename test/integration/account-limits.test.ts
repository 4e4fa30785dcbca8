import { parseList } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, many, minuteStart, rateHeaders, send, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Issue 13: limits belong to the account (every key of it draws on one budget), bans to the key.
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.stop());

/** Moves the clock to 5 s into the next minute, so a test has a whole fresh minute window. */
function nextMinute(): void {
  platform.clock.set(Math.max(minuteStart(), (Math.floor(platform.clock.now() / 60_000) + 1) * 60_000 + 5_000));
}

async function freeAccountWithTwoKeys(name: string) {
  const account = await platform.accountService.createAccount({ name, plan: 'free' });
  const a = await platform.accountService.createKey(account.accountId, 'a');
  // Usage lists keys by createdAt, then by their random ids: a later millisecond keeps a before b.
  platform.clock.advance(1);
  const b = await platform.accountService.createKey(account.accountId, 'b');
  return { accountId: account.accountId, a: a.secret, b: b.secret, keyIds: [a.key.keyId, b.key.keyId] as const };
}

describe('one budget per account', () => {
  it('two keys of a Free account together get 60 requests a minute, and the headers count them together', async () => {
    nextMinute();
    const { accountId, a, b, keyIds } = await freeAccountWithTwoKeys('two keys');
    const answers = await many(70, 8, (i) => send(platform, i % 2 === 0 ? a : b, `#${i}`));
    expect(answers.filter((x) => x.status === 202)).toHaveLength(60);
    expect(answers.filter((x) => x.status === 429).every((x) => x.body.code === 'rate_limited')).toBe(true);
    // Every accepted request saw the one budget: 59 down to 0, whichever key sent it.
    const accepted = answers.filter((x) => x.status === 202);
    const remaining = accepted.map((x) => rateHeaders(x.headers).remaining).sort((x, y) => x - y);
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(rateHeaders(answers[0]?.headers as Headers).limit).toBe(60);

    const usage = await platform.accountService.usage(accountId);
    expect(usage.minute).toMatchObject({ used: 60, limit: 60, remaining: 0 });
    expect(usage.keys.map((k) => k.used.minute).reduce((x, y) => x + y, 0)).toBe(60);
    expect(usage.keys.map((k) => k.keyId).sort()).toEqual([...keyIds].sort());

    // A third key created now adds no budget.
    const c = await platform.accountService.createKey(accountId, 'c');
    expect((await send(platform, c.secret, 'more?')).status).toBe(429);
    nextMinute();
    expect((await send(platform, c.secret, 'next minute')).status).toBe(202);
  });

  it('keeps another account\'s budget apart', async () => {
    nextMinute();
    const first = await freeAccountWithTwoKeys('first');
    const second = await freeAccountWithTwoKeys('second');
    await many(60, 8, () => send(platform, first.a, 'x'));
    expect((await send(platform, first.b, 'x')).status).toBe(429);
    const other = await send(platform, second.a, 'x');
    expect(other.status).toBe(202);
    expect(rateHeaders(other.headers).remaining).toBe(59);
  });
});

describe('bans are per key', () => {
  it('bans the key that keeps going after 429s; its sibling is refused for the budget only, then sends again', async () => {
    nextMinute();
    const { accountId, a, b, keyIds } = await freeAccountWithTwoKeys('ban one');
    const { threshold, durationSeconds } = platform.config.plans.free.ban;
    await many(60, 10, () => send(platform, b, 'x'));
    for (let i = 0; i < threshold; i++) expect((await send(platform, a, 'x')).body.code, `refusal ${i + 1}`).toBe('rate_limited');
    platform.clock.advance(300);
    const banned = await send(platform, a, 'x');
    expect(banned.status).toBe(429);
    expect(banned.body.code).toBe('key_banned');
    // The ban described consistently: Retry-After is RateLimit's t, a "ban" policy with its length.
    expect(banned.headers.get('retry-after')).toBe(String(durationSeconds));
    expect(banned.headers.get('ratelimit')).toBe(`"ban";r=0;t=${durationSeconds}`);
    const policies = parseList(banned.headers.get('ratelimit-policy') as string).map(([name, params]) => [name, Object.fromEntries(params)]);
    expect(policies).toEqual([['minute', { q: 60, w: 60 }], ['day', { q: 1_000, w: 86_400 }], ['ban', { q: 0, w: durationSeconds }]]);
    const banEnd = Math.ceil((platform.clock.now() + durationSeconds * 1000) / 1000);
    expect(rateHeaders(banned.headers)).toMatchObject({ remaining: 0, reset: banEnd });

    // The sibling is not banned: a 429 for the spent budget, with the minute's headers.
    const sibling = await send(platform, b, 'x');
    expect(sibling.body).toMatchObject({ code: 'rate_limited', window: 'minute' });
    expect(sibling.headers.get('ratelimit')).toMatch(/^"minute";r=0;t=\d+$/);
    expect(Number(sibling.headers.get('retry-after'))).toBe(Number(/t=(\d+)/.exec(sibling.headers.get('ratelimit') as string)?.[1]));

    nextMinute();
    expect((await send(platform, b, 'next minute')).status).toBe(202);
    expect((await send(platform, a, 'still banned')).body.code).toBe('key_banned');
    expect((await call(platform, '/messages/msg_7ZZZZZZZZZZZZZZZZZZZZZZZZZ', { key: a })).body.code).toBe('key_banned');
    const usage = await platform.accountService.usage(accountId);
    expect(usage.keys.find((k) => k.keyId === keyIds[0])?.bannedUntil).toBeDefined();
    expect(usage.keys.find((k) => k.keyId === keyIds[1])).not.toHaveProperty('bannedUntil');

    // An operator lifts it: the key draws on the account's budget again.
    expect(await platform.accountService.liftBan(accountId, keyIds[0])).toEqual({ keyId: keyIds[0], wasBanned: true });
    platform.clock.advance(6_000);
    expect((await send(platform, a, 'lifted')).status).toBe(202);
  });

  it('refuses a revoked key at once while its sibling keeps sending, and shows both in the usage', async () => {
    nextMinute();
    const { accountId, a, b, keyIds } = await freeAccountWithTwoKeys('revoke one');
    await send(platform, a, 'before');
    await platform.accountService.revokeKey(accountId, keyIds[0]);
    expect((await send(platform, a, 'after')).status).toBe(401);
    expect((await send(platform, b, 'sibling')).status).toBe(202);
    const usage = await platform.accountService.usage(accountId);
    expect(usage.minute.used).toBe(2);
    expect(usage.keys.map((k) => [k.status, k.used.minute])).toEqual([['revoked', 1], ['active', 1]]);
  });
});
