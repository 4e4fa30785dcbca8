/** The plans customers can be on. Order matters: later plans are "above" earlier ones. */
export const PLAN_IDS = ['free', 'pro', 'business', 'enterprise'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

/** A request budget: fixed windows aligned to UTC (the minute, and the day from 00:00 UTC). */
export interface RateLimits {
  readonly perMinute: number;
  readonly perDay: number;
}

/** When a key that keeps going after 429s is banned, and for how long. */
export interface BanPolicy {
  /** Bans after MORE than this many 429 refusals within a rolling minute. */
  readonly threshold: number;
  readonly durationSeconds: number;
}

export interface PlanDefinition {
  readonly id: PlanId;
  readonly displayName: string;
  /** Limits of the plan; Enterprise has per-account limits, these are its defaults until set. */
  readonly limits: RateLimits;
  /** True when the limits are agreed per account (Enterprise). */
  readonly customLimits: boolean;
  readonly ban: BanPolicy;
  /** Custom domains need Pro or above (interface document, custom domain rule 1). */
  readonly customDomains: boolean;
}
