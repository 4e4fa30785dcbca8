/** The plan catalogue's shape and the platform config's type: plain TypeScript, no schema library (lib/config validates). */

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

/** The usage-plan backstop's sizing (`backstop` in the config; lib/config/platform-config.ts says why). */
export interface BackstopPolicy {
  readonly factor: number;
  readonly minBurst: number;
  readonly anonymousCallers: number;
}

/** The validated platform config (lib/config/platform-config.ts is its schema, checked to agree at compile time). */
export interface PlatformConfig {
  readonly plans: Readonly<Record<PlanId, PlanDefinition>>;
  readonly anonymous: RateLimits;
  readonly backstop: BackstopPolicy;
  readonly messages: {
    readonly maxBodyBytes: number;
    readonly idempotencyTtlSeconds: number;
    readonly retentionDays: number;
    readonly maxReceiveCount: number;
  };
  /** The operator's processor bundled into the queue worker: a module path from the repository root (docs/processor.md). */
  readonly processor: string;
  readonly auth: { readonly keyCacheSeconds: number };
  readonly platform: {
    readonly domain: string;
    readonly region: string;
    readonly hostedZone?: { readonly id: string; readonly name: string } | undefined;
  };
  readonly domains: { readonly driftCheck: { readonly intervalMinutes: number; readonly gracePeriodDays: number } };
  readonly alarms: { readonly email?: string | undefined; readonly apiLatencyP99ThresholdMs?: number | undefined };
  readonly protection: {
    readonly waf: { readonly anonymousPerIpPerMinute: number; readonly perIpPerMinute: number };
    readonly stageThrottle: { readonly rateLimit: number; readonly burstLimit: number };
    readonly reservedConcurrency: {
      readonly worker: number;
      readonly domainFlowTask: number;
      readonly controlApi: number;
    };
  };
  readonly environment: {
    readonly terminationProtection: boolean;
    readonly apiGatewayAccountRole: boolean;
    readonly tags: Readonly<Record<string, string>>;
  };
}

/** What a function's environment carries (lib/config's runtimeConfig): the config without its deploy-time sections. */
export type RuntimeConfig = Omit<PlatformConfig, 'alarms' | 'protection' | 'environment'>;

/** Backstop usage-plan values for a plan's limits: throttle in req/s with a burst, and a daily quota. */
export function backstopFor(limits: RateLimits, config: { readonly backstop: Pick<BackstopPolicy, 'factor' | 'minBurst'> }) {
  const { factor, minBurst } = config.backstop;
  return {
    rateLimit: Math.max(1, Math.ceil((limits.perMinute * factor) / 60)),
    burstLimit: Math.max(minBurst, Math.ceil(limits.perMinute * factor)),
    quotaPerDay: Math.ceil(limits.perDay * factor),
  };
}
