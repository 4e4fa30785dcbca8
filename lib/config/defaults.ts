import type { BanPolicy } from './plans.js';

/** Default ban policy (docs/operators/configuration.md): more than 30 refusals in a rolling minute bans the key for 15 minutes. */
const defaultBan: BanPolicy = { threshold: 30, durationSeconds: 15 * 60 };

/**
 * The one table of plans and limits (interface document, "Rate limits by plan"). Two consumers:
 * the usage-plan backstop at twice the limits (backstopFor in ./index.ts:
 * lib/constructs/messages/usage-plan-backstop.ts per plan, lambda/keys/api-gateway-usage-plan-gateway.ts
 * per Enterprise account), and the runtime limiter, which counts against the limits the account
 * service stores in the account's limiter items (lambda/rate-limits/account-limits.ts); those win
 * over the authorizer's copy. docs/contributors/architecture.md, "Configuration".
 */
export const defaultConfig = {
  plans: {
    free: {
      id: 'free',
      displayName: 'Free',
      limits: { perMinute: 60, perDay: 1_000 },
      customLimits: false,
      ban: defaultBan,
      customDomains: false,
    },
    pro: {
      id: 'pro',
      displayName: 'Pro',
      limits: { perMinute: 300, perDay: 10_000 },
      customLimits: false,
      ban: defaultBan,
      customDomains: true,
    },
    business: {
      id: 'business',
      displayName: 'Business',
      limits: { perMinute: 1_000, perDay: 100_000 },
      customLimits: false,
      ban: defaultBan,
      customDomains: true,
    },
    enterprise: {
      id: 'enterprise',
      displayName: 'Enterprise',
      // Agreed per account; these apply until an operator sets the account's own values.
      limits: { perMinute: 5_000, perDay: 1_000_000 },
      customLimits: true,
      ban: defaultBan,
      customDomains: true,
    },
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
    // 40 + 6 flow tasks x 4 + 10 = 74 in all: an account needs a concurrency quota of at least 174
    // (Lambda keeps 100 unreserved; new accounts may have 10: docs/operators/deploy.md, "First deploy", says
    // what to do then).
    reservedConcurrency: { worker: 40, domainFlowTask: 4, controlApi: 10 },
  },
  environment: {
    terminationProtection: true,
    apiGatewayAccountRole: true,
    tags: {} as Record<string, string>,
  },
} as const;
