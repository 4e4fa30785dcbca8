import { parseList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { bindingWindow, rateLimitHeaders } from '../../../lambda/rate-limits/headers.js';
import type { LimiterState } from '../../../lambda/rate-limits/limiter-state.js';

/** 2026-11-21 10:15:00 UTC (a minute start) and midnight after it, in Unix seconds. */
const T0_SEC = Date.UTC(2026, 10, 21, 10, 15, 0) / 1000;
const DAY_END_SEC = Date.UTC(2026, 10, 22) / 1000;

function state(
  minute: { limit: number; used: number },
  day: { limit: number; used: number },
  nowMs = (T0_SEC + 30) * 1000,
  bannedUntilMs?: number,
): LimiterState {
  return {
    nowMs,
    minute: { name: 'minute', ...minute, windowSeconds: 60, resetMs: (T0_SEC + 60) * 1000 },
    day: { name: 'day', ...day, windowSeconds: 86_400, resetMs: DAY_END_SEC * 1000 },
    ...(bannedUntilMs === undefined ? {} : { ban: { untilMs: bannedUntilMs, durationSeconds: 900 } }),
  };
}

describe('rateLimitHeaders', () => {
  it('describes the minute when it has fewer requests left (as in docs/api-clients.md)', () => {
    expect(rateLimitHeaders(state({ limit: 60, used: 48 }, { limit: 1_000, used: 500 }))).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '12',
      'X-RateLimit-Reset': String(T0_SEC + 60),
      'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
      RateLimit: '"minute";r=12;t=30',
    });
  });

  it('describes the day when it has fewer requests left, with Reset at midnight UTC', () => {
    const s = state({ limit: 60, used: 1 }, { limit: 1_000, used: 995 });
    expect(rateLimitHeaders(s)).toEqual({
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '5',
      'X-RateLimit-Reset': String(DAY_END_SEC),
      'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
      // 10:15:30 → midnight = 13 h 44 min 30 s.
      RateLimit: '"day";r=5;t=49470',
    });
    expect(bindingWindow(s).name).toBe('day');
  });

  it('breaks a tie in favour of the minute', () => {
    const s = state({ limit: 60, used: 55 }, { limit: 1_000, used: 995 });
    expect(bindingWindow(s).name).toBe('minute');
    expect(rateLimitHeaders(s)).toMatchObject({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '5',
      'X-RateLimit-Reset': String(T0_SEC + 60),
      RateLimit: '"minute";r=5;t=30',
    });
  });

  it('breaks a tie at zero in favour of the minute too', () => {
    const s = state({ limit: 60, used: 60 }, { limit: 1_000, used: 1_000 });
    expect(rateLimitHeaders(s)).toMatchObject({ 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '0' });
  });

  it('never reports a negative Remaining (counts above a lowered limit)', () => {
    const s = state({ limit: 60, used: 75 }, { limit: 1_000, used: 75 });
    expect(rateLimitHeaders(s)).toMatchObject({ 'X-RateLimit-Remaining': '0', RateLimit: '"minute";r=0;t=30' });
  });

  it('rounds t up to whole seconds between seconds', () => {
    const s = state({ limit: 60, used: 0 }, { limit: 1_000, used: 0 }, (T0_SEC + 30) * 1000 + 250);
    expect(rateLimitHeaders(s)).toMatchObject({
      'X-RateLimit-Reset': String(T0_SEC + 60),
      RateLimit: '"minute";r=60;t=30',
    });
  });

  it('names the policy of each plan exactly', () => {
    expect(rateLimitHeaders(state({ limit: 300, used: 0 }, { limit: 10_000, used: 0 }))['RateLimit-Policy']).toBe(
      '"minute";q=300;w=60, "day";q=10000;w=86400',
    );
  });

  it('while banned: a "ban" policy, RateLimit naming it with t = the seconds until the ban ends, Remaining 0', () => {
    const nowMs = (T0_SEC + 30) * 1000;
    const s = state({ limit: 60, used: 60 }, { limit: 1_000, used: 200 }, nowMs, nowMs + 900_000);
    expect(rateLimitHeaders(s)).toEqual({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(T0_SEC + 30 + 900),
      'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400, "ban";q=0;w=900',
      RateLimit: '"ban";r=0;t=900',
    });
  });

  it('while banned with budget left: still Remaining 0, and a ban end between seconds rounds up alike everywhere', () => {
    const nowMs = (T0_SEC + 30) * 1000 + 250;
    const s = state({ limit: 60, used: 3 }, { limit: 1_000, used: 3 }, nowMs, (T0_SEC + 31) * 1000 + 750);
    expect(rateLimitHeaders(s)).toMatchObject({
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(T0_SEC + 32),
      RateLimit: '"ban";r=0;t=2',
    });
  });

  it('on a refusal, names the window that refused even when the other has as little left', () => {
    const s: LimiterState = { ...state({ limit: 60, used: 60 }, { limit: 1_000, used: 1_000 }), blocking: 'day' };
    expect(rateLimitHeaders(s)).toMatchObject({
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(DAY_END_SEC),
      RateLimit: '"day";r=0;t=49470',
    });
  });

  it('parse as RFC 9651 lists, banned or not', () => {
    const nowMs = (T0_SEC + 30) * 1000;
    for (const s of [
      state({ limit: 60, used: 48 }, { limit: 1_000, used: 500 }),
      state({ limit: 60, used: 60 }, { limit: 1_000, used: 60 }, nowMs, nowMs + 900_000),
    ]) {
      const h = rateLimitHeaders(s);
      const policies = parseList(h['RateLimit-Policy'] as string).map(([name, params]) => [name, Object.fromEntries(params)]);
      expect(policies.slice(0, 2)).toEqual([['minute', { q: 60, w: 60 }], ['day', { q: 1000, w: 86_400 }]]);
      const [name, params] = parseList(h.RateLimit as string)[0] as unknown as [string, Map<string, number>];
      // The item RateLimit names is one of the policies, and its t never exceeds that policy's window.
      expect(policies.map(([policy]) => policy)).toContain(name);
      expect(params?.get('t')).toBeLessThanOrEqual(Object.fromEntries(policies)[name as string]?.w as number);
    }
  });

  it('sends only integers in the X-RateLimit-* headers', () => {
    const s = state({ limit: 60, used: 7 }, { limit: 1_000, used: 7 }, (T0_SEC + 12) * 1000 + 345);
    const h = rateLimitHeaders(s);
    for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
      expect(h[name]).toMatch(/^\d+$/);
    }
  });
});
