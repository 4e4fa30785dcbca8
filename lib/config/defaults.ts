import type { BanPolicy } from './plans.js';

/** Default ban policy (design §1): more than 30 refusals in a rolling minute bans the key for 15 minutes. */
const defaultBan: BanPolicy = { threshold: 30, durationSeconds: 15 * 60 };

/** The one table of plans and limits. Interface document, "Rate limits by plan". */
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
  auth: { keyCacheSeconds: 30 },
  platform: { domain: 'platform.example.com', region: 'eu-west-1' },
} as const;
