import { describe, expect, it } from 'vitest';
import {
  backstopFor,
  ConfigError,
  defaultConfig,
  loadConfig,
  PLAN_IDS,
  type PlatformConfig,
  type RateLimits,
  validateConfig,
} from '../../../lib/config/index.js';

/** The issues of the ConfigError that `fn` throws (fails the test when it does not throw one). */
function issuesOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  throw new Error('expected a ConfigError, nothing was thrown');
}

describe('the shipped plan table', () => {
  const config = loadConfig();

  it('has the four plans of the interface document, in order', () => {
    expect(PLAN_IDS).toEqual(['free', 'pro', 'business', 'enterprise']);
    expect(Object.keys(config.plans)).toEqual(['free', 'pro', 'business', 'enterprise']);
    expect(Object.values(config.plans).map((p) => p.displayName)).toEqual(['Free', 'Pro', 'Business', 'Enterprise']);
  });

  it('has the limits of the interface document ("Rate limits by plan")', () => {
    expect(config.plans.free.limits).toEqual({ perMinute: 60, perDay: 1_000 });
    expect(config.plans.pro.limits).toEqual({ perMinute: 300, perDay: 10_000 });
    expect(config.plans.business.limits).toEqual({ perMinute: 1_000, perDay: 100_000 });
  });

  it('gives Enterprise custom limits, and no other plan', () => {
    expect(Object.fromEntries(PLAN_IDS.map((id) => [id, config.plans[id].customLimits]))).toEqual({
      free: false,
      pro: false,
      business: false,
      enterprise: true,
    });
  });

  it('allows custom domains on Pro and above only', () => {
    expect(Object.fromEntries(PLAN_IDS.map((id) => [id, config.plans[id].customDomains]))).toEqual({
      free: false,
      pro: true,
      business: true,
      enterprise: true,
    });
  });

  it('bans after more than 30 refusals for 15 minutes on every plan (the default)', () => {
    for (const id of PLAN_IDS) expect(config.plans[id].ban).toEqual({ threshold: 30, durationSeconds: 900 });
  });

  it('keys each plan by its own id', () => {
    for (const id of PLAN_IDS) {
      expect(config.plans[id].id).toBe(id);
    }
  });

  it('budgets anonymous callers at 60 per minute and sends 256 KiB bodies at most', () => {
    expect(config.anonymous.perMinute).toBe(60);
    expect(config.messages.maxBodyBytes).toBe(262_144);
    expect(config.messages.idempotencyTtlSeconds).toBe(86_400);
  });

  it('validates the defaults as they are', () => {
    expect(validateConfig(structuredClone(defaultConfig))).toEqual(defaultConfig);
  });
});

describe('loadConfig', () => {
  it('returns the defaults without overrides', () => {
    expect(loadConfig()).toEqual(defaultConfig);
    expect(loadConfig({})).toEqual(defaultConfig);
  });

  it('merges a deep override and keeps every sibling value', () => {
    const config = loadConfig({
      plans: { pro: { limits: { perMinute: 400 } } },
      platform: { domain: 'apps.example.net' },
    });
    expect(config.plans.pro.limits).toEqual({ perMinute: 400, perDay: 10_000 });
    expect(config.plans.pro.displayName).toBe('Pro');
    expect(config.plans.free).toEqual(defaultConfig.plans.free);
    expect(config.platform).toEqual({ domain: 'apps.example.net', region: 'eu-west-1' });
    expect(config.messages).toEqual(defaultConfig.messages);
  });

  it('does not change the shipped defaults', () => {
    loadConfig({ plans: { free: { limits: { perMinute: 61 } } }, auth: { keyCacheSeconds: 5 } });
    expect(defaultConfig.plans.free.limits.perMinute).toBe(60);
    expect(defaultConfig.auth.keyCacheSeconds).toBe(30);
    expect(loadConfig().plans.free.limits.perMinute).toBe(60);
  });

  it('accepts perDay equal to perMinute (the boundary of the rule)', () => {
    expect(loadConfig({ plans: { free: { limits: { perDay: 60 } } } }).plans.free.limits).toEqual({
      perMinute: 60,
      perDay: 60,
    });
  });

  it('accepts Enterprise limits below Business (they are agreed per account)', () => {
    expect(
      loadConfig({ plans: { enterprise: { limits: { perMinute: 10, perDay: 10 } } } }).plans.enterprise.limits,
    ).toEqual({ perMinute: 10, perDay: 10 });
  });
});

describe('bad values are rejected with a message naming them', () => {
  it.each([
    ['zero', { plans: { free: { limits: { perMinute: 0 } } } }, 'plans.free.limits.perMinute must be greater than 0'],
    [
      'negative',
      { plans: { free: { limits: { perMinute: -5 } } } },
      'plans.free.limits.perMinute must be greater than 0',
    ],
    [
      'fractional',
      { plans: { free: { limits: { perMinute: 1.5 } } } },
      'plans.free.limits.perMinute must be a whole number',
    ],
    [
      'a string for a number',
      { plans: { free: { limits: { perMinute: '60' } } } },
      'plans.free.limits.perMinute must be a number',
    ],
    [
      'perDay below perMinute',
      { plans: { free: { limits: { perDay: 59 } } } },
      'plans.free.limits.perDay must be at least plans.free.limits.perMinute',
    ],
    [
      'anonymous perDay below perMinute',
      { anonymous: { perMinute: 100, perDay: 99 } },
      'anonymous.perDay must be at least anonymous.perMinute',
    ],
    [
      'an unknown key (strict)',
      { plans: { free: { limits: { perHour: 3 } } } },
      'plans.free.limits: Unrecognized key: "perHour"',
    ],
    ['an unknown top-level key', { region: 'eu-west-1' }, 'Unrecognized key: "region"'],
    ['an unknown plan', { plans: { starter: { id: 'starter' } } }, 'plans: Unrecognized key: "starter"'],
    ['a plan under the wrong id', { plans: { free: { id: 'pro' } } }, 'plans.free.id must be "free"'],
    [
      'a ban threshold of 0',
      { plans: { pro: { ban: { threshold: 0 } } } },
      'plans.pro.ban.threshold must be greater than 0',
    ],
    ['a bad region', { platform: { region: 'Europe' } }, 'platform.region: "Europe" is not an AWS region such as eu-west-1'],
    ['a mistyped region', { platform: { region: 'eu-wset-1' } }, 'platform.region: "eu-wset-1" is not an AWS region (did you mean "eu-west-1"?)'],
    ['a region shaped right that does not exist', { platform: { region: 'eu-west-9' } }, 'platform.region: "eu-west-9" is not an AWS region (did you mean "eu-west-1"?)'],
    ['a latency threshold of 0', { alarms: { apiLatencyP99ThresholdMs: 0 } }, 'alarms.apiLatencyP99ThresholdMs must be greater than 0'],
    ['termination protection as a string', { environment: { terminationProtection: 'no' } }, 'environment.terminationProtection must be true or false'],
    ['a tag the platform sets', { environment: { tags: { Environment: 'prod' } } }, 'environment.tags must not set Environment: the platform sets it (Environment = the stack prefix)'],
    ['an aws: tag', { environment: { tags: { 'aws:cost': 'x' } } }, 'environment.tags key "aws:cost" must be 1-128 letters, digits, spaces or _.:/=+-@ and not start with "aws:"'],
    [
      'a region without its number',
      { platform: { region: 'eu-west' } },
      'platform.region: "eu-west" is not an AWS region (did you mean "eu-west-1"?)',
    ],
    [
      'an upper-case domain',
      { platform: { domain: 'Example.COM' } },
      'platform.domain: must be a lower-case DNS name such as example.com',
    ],
    [
      'a single-label domain',
      { platform: { domain: 'localhost' } },
      'platform.domain: must be a lower-case DNS name such as example.com',
    ],
    [
      'a domain with a scheme',
      { platform: { domain: 'https://example.com' } },
      'platform.domain: must be a lower-case DNS name such as example.com',
    ],
    [
      'a label ending in a hyphen',
      { platform: { domain: 'bad-.example.com' } },
      'platform.domain: must be a lower-case DNS name such as example.com',
    ],
    ['a backstop factor below 1', { backstop: { factor: 0.5 } }, 'backstop.factor must be at least 1'],
  ])('%s', (_what, overrides, issue) => {
    expect(issuesOf(() => loadConfig(overrides))).toEqual([issue]);
  });

  // An over-the-maximum value is a number: the message must name the maximum, not ask for a number.
  it.each([
    ['messages.maxBodyBytes', { messages: { maxBodyBytes: 1024 * 1024 + 1 } }, 1_048_576],
    ['messages.maxReceiveCount', { messages: { maxReceiveCount: 1_001 } }, 1_000],
  ])('%s over its maximum', (path, overrides, max) => {
    const issues = issuesOf(() => loadConfig(overrides));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(new RegExp(`^${path.replace('.', '\\.')}\\b.*\\b${max}\\b`));
    expect(issues[0]).not.toContain('must be a number');
  });

  it.each([
    ['free above pro per minute', { plans: { free: { limits: { perMinute: 301 } } } }],
    ['pro above business per minute', { plans: { pro: { limits: { perMinute: 1_001 } } } }],
    ['free above pro per day', { plans: { free: { limits: { perDay: 10_001 } } } }],
    ['pro above business per day', { plans: { pro: { limits: { perDay: 100_001 } } } }],
  ])('plans shrinking from free to business: %s', (_what, overrides) => {
    expect(issuesOf(() => loadConfig(overrides))).toEqual(['plans must not get smaller from free to pro to business']);
  });

  it('names every bad value at once, and says so in the error message', () => {
    let error: unknown;
    try {
      loadConfig({ plans: { free: { limits: { perMinute: 0 } } }, platform: { region: 'Europe' } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).name).toBe('ConfigError');
    expect((error as ConfigError).issues).toEqual([
      'plans.free.limits.perMinute must be greater than 0',
      'platform.region: "Europe" is not an AWS region such as eu-west-1',
    ]);
    expect((error as ConfigError).message).toBe(
      'Invalid platform config:\n' +
      '  - plans.free.limits.perMinute must be greater than 0\n' +
      '  - platform.region: "Europe" is not an AWS region such as eu-west-1',
    );
  });

  it('rejects something that is not an object', () => {
    expect(() => validateConfig('free')).toThrow(ConfigError);
    expect(() => validateConfig(null)).toThrow(ConfigError);
  });

  it.each([
    [{ domains: { driftCheck: { intervalMinutes: 0 } } }, 'domains.driftCheck.intervalMinutes must be greater than 0'],
    [{ domains: { driftCheck: { intervalMinutes: 1441 } } }, 'domains.driftCheck.intervalMinutes must be at most 1440 (once a day)'],
    [{ domains: { driftCheck: { gracePeriodDays: 1.5 } } }, 'domains.driftCheck.gracePeriodDays must be a whole number'],
    [{ domains: { driftCheck: { gracePeriodDays: 91 } } }, 'domains.driftCheck.gracePeriodDays must be at most 90'],
  ])('the drift check settings: %j', (overrides, issue) => {
    expect(issuesOf(() => loadConfig(overrides))).toEqual([issue]);
  });
});

describe('custom domain settings', () => {
  it('re-check live domains hourly and serve a misconfigured one for 7 days by default; a config without them gets them', () => {
    expect(loadConfig().domains).toEqual({ driftCheck: { intervalMinutes: 60, gracePeriodDays: 7 } });
    const { domains: _domains, ...without } = loadConfig();
    expect(validateConfig(without).domains).toEqual({ driftCheck: { intervalMinutes: 60, gracePeriodDays: 7 } });
    const shorter = loadConfig({ domains: { driftCheck: { gracePeriodDays: 3 } } });
    expect(shorter.domains.driftCheck).toEqual({ intervalMinutes: 60, gracePeriodDays: 3 });
  });
});

describe('backstopFor', () => {
  /** The design's formula: factor × the plan per second (at least 1 req/s), a burst of at least minBurst, factor × the day. */
  function expected(limits: RateLimits, factor: number, minBurst: number) {
    return {
      rateLimit: Math.max(1, Math.ceil((limits.perMinute / 60) * factor)),
      burstLimit: Math.max(minBurst, Math.ceil(limits.perMinute * factor)),
      quotaPerDay: Math.ceil(limits.perDay * factor),
    };
  }

  const config = loadConfig();

  it.each(PLAN_IDS)('follows the formula for %s', (id) => {
    const { limits } = config.plans[id];
    expect(backstopFor(limits, config)).toEqual(expected(limits, 2, 500));
  });

  it('gives Free 2 req/s, a burst of 500 and 2,000 a day (worked by hand)', () => {
    expect(backstopFor(config.plans.free.limits, config)).toEqual({
      rateLimit: 2,
      burstLimit: 500,
      quotaPerDay: 2_000,
    });
  });

  it('gives Business 34 req/s (2,000/60 rounded up), a burst of 2,000 and 200,000 a day (worked by hand)', () => {
    expect(backstopFor(config.plans.business.limits, config)).toEqual({
      rateLimit: 34,
      burstLimit: 2_000,
      quotaPerDay: 200_000,
    });
  });

  it('never throttles below 1 req/s and rounds a fractional factor up', () => {
    const tuned: PlatformConfig = loadConfig({ backstop: { factor: 1.5, minBurst: 1 } });
    expect(backstopFor({ perMinute: 1, perDay: 3 }, tuned)).toEqual({ rateLimit: 1, burstLimit: 2, quotaPerDay: 5 });
  });

  it('stays at or above the plan limits for every plan (the limiter must answer first)', () => {
    for (const id of PLAN_IDS) {
      const { limits } = config.plans[id];
      const backstop = backstopFor(limits, config);
      expect(backstop.rateLimit * 60).toBeGreaterThanOrEqual(limits.perMinute);
      expect(backstop.burstLimit).toBeGreaterThanOrEqual(limits.perMinute);
      expect(backstop.quotaPerDay).toBeGreaterThanOrEqual(limits.perDay);
    }
  });
});
