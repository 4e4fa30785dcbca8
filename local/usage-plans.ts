import { DAY_MS } from '../lambda/rate-limits/windows.js';
import type { Clock } from '../lambda/shared/clock.js';

export interface UsagePlanLimits {
  readonly rateLimit: number;
  readonly burstLimit: number;
  readonly quotaPerDay: number;
}

export type BackstopVerdict = 'ok' | 'THROTTLED' | 'QUOTA_EXCEEDED' | 'INVALID_API_KEY';

/**
 * API Gateway usage plans as the local front applies them: a token bucket (rate per second,
 * burst) and a daily quota per internal API key. Like API Gateway, they meter every request that
 * reaches them, and they are only the backstop behind the exact limiter in the handlers.
 */
export class UsagePlans {
  private readonly plans = new Map<string, UsagePlanLimits>();
  private readonly buckets = new Map<string, { tokens: number; atMs: number; day: number; used: number }>();

  constructor(private readonly clock: Clock) {}

  bind(apiKeyValue: string, limits: UsagePlanLimits): void {
    this.plans.set(apiKeyValue, limits);
  }

  admit(apiKeyValue: string | undefined): BackstopVerdict {
    const plan = apiKeyValue === undefined ? undefined : this.plans.get(apiKeyValue);
    if (!plan || apiKeyValue === undefined) return 'INVALID_API_KEY';
    const now = this.clock.now();
    const day = Math.floor(now / DAY_MS);
    const bucket = this.buckets.get(apiKeyValue) ?? { tokens: plan.burstLimit, atMs: now, day, used: 0 };
    bucket.tokens = Math.min(plan.burstLimit, bucket.tokens + (Math.max(0, now - bucket.atMs) / 1000) * plan.rateLimit);
    bucket.atMs = now;
    if (bucket.day !== day) {
      bucket.day = day;
      bucket.used = 0;
    }
    this.buckets.set(apiKeyValue, bucket);
    if (bucket.used >= plan.quotaPerDay) return 'QUOTA_EXCEEDED';
    if (bucket.tokens < 1) return 'THROTTLED';
    bucket.tokens -= 1;
    bucket.used += 1;
    return 'ok';
  }
}
