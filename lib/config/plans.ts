// The plan catalogue lives in contracts/ so that functions read it without lib/ (or zod).
export { PLAN_IDS, backstopFor } from '../../contracts/plans.js';
export type { BackstopPolicy, BanPolicy, PlanDefinition, PlanId, PlatformConfig, RateLimits, RuntimeConfig } from '../../contracts/plans.js';
