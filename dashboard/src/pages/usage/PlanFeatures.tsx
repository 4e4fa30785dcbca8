import { formatNumber } from '../../format';
import type { Plan } from '../../types';

/** Which features each plan has, as the plan cards list them (from the catalogue, GET /plans). */
export const FEATURES = [
  { label: 'Messages API with API keys', has: () => true },
  { label: 'Projects at a platform subdomain', has: () => true },
  { label: 'Custom domains', has: (plan: Plan) => plan.customDomains },
  { label: 'Agreed (custom) limits', has: (plan: Plan) => plan.customLimits },
] as const;

export const limitsText = (plan: Plan) =>
  plan.customLimits
    ? 'Limits agreed with you'
    : `${formatNumber(plan.limits.perMinute)} requests a minute, ${formatNumber(plan.limits.perDay)} a day`;
