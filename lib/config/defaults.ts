import type { BanPolicy, PlanId, RateLimits } from './plans.js';

/** More than 30 refusals in a rolling minute ban the key for 15 minutes. */
const defaultBan: BanPolicy = { threshold: 30, durationSeconds: 15 * 60 };

/** A default plan: every plan has the same ban; only Enterprise's limits are agreed per account. */
const plan = <Id extends PlanId>(id: Id, displayName: string, limits: RateLimits, customDomains: boolean) =>
  ({ id, displayName, limits, customLimits: id === 'enterprise', ban: defaultBan, customDomains });

/** The one table of plans, limits and policies: docs/operators/configuration.md says who reads it. */
export const defaultConfig = {
  plans: {
    free: plan('free', 'Free', { perMinute: 60, perDay: 1_000 }, false),
    pro: plan('pro', 'Pro', { perMinute: 300, perDay: 10_000 }, true),
    business: plan('business', 'Business', { perMinute: 1_000, perDay: 100_000 }, true),
    // Agreed per account; these apply until an operator sets the account's own values.
    enterprise: plan('enterprise', 'Enterprise', { perMinute: 5_000, perDay: 1_000_000 }, true),
  },
  anonymous: { perMinute: 60, perDay: 10_000 },
  backstop: { factor: 2, minBurst: 500, anonymousCallers: 100 },
  messages: {
    maxBodyBytes: 256 * 1024,
    idempotencyTtlSeconds: 24 * 60 * 60,
    retentionDays: 30,
    maxReceiveCount: 5,
  },
  // Accepts every message; an operator names their own module here (docs/processor.md).
  processor: 'processors/default.ts',
  auth: { keyCacheSeconds: 30 },
  // A placeholder: `cdk synth` works with it offline, a deploy refuses it (lib/config/reserved-domains.ts).
  platform: { domain: 'platform.example.com', region: 'eu-west-1' },
  // Hourly: a domain pointed elsewhere is seen within the hour; a week to notice and fix it before detachment.
  domains: { driftCheck: { intervalMinutes: 60, gracePeriodDays: 7 } },
  alarms: {},
  protection: {
    // Anonymous callers get 60/min from our own limiter (with headers); past 5x that an IP's
    // requests without a key stop at WAF, before any Lambda runs.
    waf: { anonymousPerIpPerMinute: 300, perIpPerMinute: 20_000 },
    // Below API Gateway's account default (10,000 rps, burst 5,000), so the Messages API cannot
    // take the whole account's REST budget from the control API.
    stageThrottle: { rateLimit: 5_000, burstLimit: 2_500 },
    // 74 in all (40 + 6 flow tasks x 4 + 10): the account needs a concurrency quota of 174 or more
    // (docs/operators/deploy.md, "First deploy").
    reservedConcurrency: { worker: 40, domainFlowTask: 4, controlApi: 10 },
  },
  environment: {
    terminationProtection: true,
    apiGatewayAccountRole: true,
    tags: {} as Record<string, string>,
  },
} as const;
