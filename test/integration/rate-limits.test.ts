import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_IDS } from '../../lib/config/index.js';
import {
  call,
  many,
  minuteStart,
  rateHeaders,
  send,
  startTestPlatform,
  type TestPlatform, freshKey } from '../support/platform.js';

// Interface document "Limits" and "Authentication" rule 4; docs/api-clients.md, "Behaviour"; docs/contributors/limiter.md.
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.stop());

/** Moves the clock to 5 s into the next minute, so a test has a whole fresh minute window. */
function nextMinute(): void {
  platform.clock.set(Math.max(minuteStart(), (Math.floor(platform.clock.now() / 60_000) + 1) * 60_000 + 5_000));
}

describe('per-minute limits', () => {
  it.each(PLAN_IDS)('the %s key gets exactly its per-minute limit, then 429', async (plan) => {
    nextMinute();
    const key = await freshKey(platform, plan, `limit test ${plan}`);
    const limit = platform.config.plans[plan].limits.perMinute;
    const answers = await many(limit, 16, () => send(platform, key, 'x'));
    expect(answers.every((a) => a.status === 202)).toBe(true);
    const remaining = answers.map((a) => rateHeaders(a.headers).remaining).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: limit }, (_, i) => i));

    const refused = await send(platform, key, 'one too many');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'rate_limited', window: 'minute' });
  });

  it('refuses the 61st request of a Free key inside one minute, with Retry-After to the minute end', async () => {
    nextMinute();
    const key = await freshKey(platform, 'free', 'sixty-first');
    for (let i = 1; i <= 60; i++) {
      const answer = await send(platform, key, `#${i}`);
      expect(answer.status, `request ${i}`).toBe(202);
      expect(rateHeaders(answer.headers)).toEqual({
        limit: 60,
        remaining: 60 - i,
        reset: Math.ceil(((Math.floor(platform.clock.now() / 60_000) + 1) * 60_000) / 1000),
      });
    }
    platform.clock.advance(20_000); // 25 s into the minute: 35 s remain
    const answer = await send(platform, key, '#61');
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('35');
    expect(rateHeaders(answer.headers).remaining).toBe(0);
    expect(answer.headers.get('ratelimit')).toBe('"minute";r=0;t=35');
    expect(answer.body.retryAfter).toBe(35);
  });

  it('opens a fresh window at the next minute', async () => {
    nextMinute();
    const key = await freshKey(platform, 'free', 'rollover');
    await many(60, 10, () => send(platform, key, 'x'));
    expect((await send(platform, key, 'x')).status).toBe(429);
    platform.clock.advance(60_000);
    const answer = await send(platform, key, 'next minute');
    expect(answer.status).toBe(202);
    expect(rateHeaders(answer.headers).remaining).toBe(59);
  });

  it('accepts exactly 60 of 300 concurrent requests on a 60/min key, all answered with headers', async () => {
    nextMinute();
    const key = await freshKey(platform, 'free', 'concurrency');
    const answers = await many(300, 300, () => send(platform, key, 'burst'));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(60);
    expect(statuses.filter((s) => s !== 202).every((s) => s === 429)).toBe(true);
    for (const a of answers) expect(a.headers.get('x-ratelimit-limit')).toBe('60');
    for (const a of answers.filter((x) => x.status === 429))
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('per-day limit', () => {
  it('binds when fewer requests remain in the day than in the minute', async () => {
    nextMinute();
    const key = await freshKey(platform, 'enterprise', 'day limit');
    const { perMinute, perDay } = platform.config.plans.enterprise.limits; // 150/min, 400/day in tests
    let sent = 0;
    while (sent < perDay - 10) {
      const batch = Math.min(perMinute, perDay - 10 - sent);
      const answers = await many(batch, 25, () => send(platform, key, 'x'));
      expect(answers.every((a) => a.status === 202)).toBe(true);
      sent += batch;
      platform.clock.advance(60_000);
    }
    const answer = await send(platform, key, 'x');
    expect(rateHeaders(answer.headers)).toMatchObject({ limit: perDay, remaining: 9 });
    expect(answer.headers.get('ratelimit')).toMatch(/^"day";r=9;t=\d+$/);
    await many(9, 9, () => send(platform, key, 'x'));
    const refused = await send(platform, key, 'x');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'rate_limited', window: 'day' });
    const dayEnd = (Math.floor(platform.clock.now() / 86_400_000) + 1) * 86_400;
    expect(rateHeaders(refused.headers).reset).toBe(dayEnd);
  });
});

describe('ban after continued requests past a 429', () => {
  it('bans a key that keeps going, reports the ban, and lets it through when the ban ends', async () => {
    nextMinute();
    const key = await freshKey(platform, 'free', 'ban test');
    const { threshold, durationSeconds } = platform.config.plans.free.ban;
    await many(60, 10, () => send(platform, key, 'x'));
    for (let i = 0; i < threshold; i++) {
      const answer = await send(platform, key, 'x');
      expect(answer.body.code, `refusal ${i + 1}`).toBe('rate_limited');
    }
    const banned = await send(platform, key, 'x');
    expect(banned.status).toBe(429);
    expect(banned.body.code).toBe('key_banned');
    expect(banned.headers.get('retry-after')).toBe(String(durationSeconds));
    const banEnd = Math.ceil((platform.clock.now() + durationSeconds * 1000) / 1000);
    expect(rateHeaders(banned.headers)).toMatchObject({ remaining: 0, reset: banEnd });

    // Banned keys are refused even in a fresh window, and reads are refused too.
    platform.clock.advance(60_000);
    expect((await send(platform, key, 'x')).body.code).toBe('key_banned');
    expect((await call(platform, '/messages/msg_7ZZZZZZZZZZZZZZZZZZZZZZZZZ', { key })).body.code).toBe('key_banned');

    platform.clock.advance(durationSeconds * 1000);
    expect((await send(platform, key, 'after the ban')).status).toBe(202);
  });

  it('does not ban a key that stops at its 429s', async () => {
    nextMinute();
    const key = await freshKey(platform, 'free', 'polite');
    await many(60, 10, () => send(platform, key, 'x'));
    for (let i = 0; i < platform.config.plans.free.ban.threshold; i++) await send(platform, key, 'x');
    platform.clock.advance(60_000);
    expect((await send(platform, key, 'x')).status).toBe(202);
  });
});

describe('order of checks and budget', () => {
  it('answers 429 before 400 once the budget is spent, and a 400 spends nothing', async () => {
    nextMinute();
    const key = await freshKey(platform, 'free', 'order');
    for (let i = 0; i < 5; i++) expect((await call(platform, '/messages', { key, body: 'not json' })).status).toBe(400);
    const answers = await many(60, 10, () => send(platform, key, 'x'));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(60);
    const invalid = await call(platform, '/messages', { key, body: 'not json' });
    expect(invalid.status).toBe(429);
  });
});

describe('anonymous budget per client IP', () => {
  it('counts requests without a valid key, so 401s carry headers and guessing is throttled', async () => {
    nextMinute();
    const { perMinute } = platform.config.anonymous;
    const answers = await many(perMinute, 10, (i) =>
      call(platform, '/messages', { body: { message: 'x' }, headers: { Authorization: `Bearer guess-${i}` } }),
    );
    expect(answers.every((a) => a.status === 401)).toBe(true);
    expect(answers.map((a) => rateHeaders(a.headers).remaining).sort((a, b) => a - b)[0]).toBe(0);
    const throttled = await call(platform, '/messages', { body: { message: 'x' } });
    expect(throttled.status).toBe(429);
    expect(throttled.body.code).toBe('rate_limited');
    // A valid key is unaffected by the anonymous budget of its IP.
    expect((await send(platform, platform.demoKeys.pro, 'x')).status).toBe(202);
  });
});
