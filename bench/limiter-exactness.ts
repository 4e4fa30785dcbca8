import { PLAN_IDS, type PlanId } from '../lib/config/index.js';
import type { LocalPlatform } from '../local/platform.js';
import type { ManualClock } from '../lambda/shared/clock.js';
import { type BenchOptions, type Figure, pool } from './lib.js';

/** First millisecond of the minute `minutesAhead` from now, plus 5 s. */
const minuteStart = (minutesAhead: number) => (Math.floor(Date.now() / 60_000) + minutesAhead) * 60_000 + 5_000;

/**
 * For each plan: on a fresh key, exactly `limit` concurrent POSTs (all must be accepted), and on
 * another fresh key `limit` × 1.2 (+2) concurrent POSTs (exactly `limit` accepted), over real HTTP.
 * The platform runs on a manual clock: each burst gets a minute of its own, so no window rolls over
 * mid-burst and the usage-plan backstop starts each burst full.
 */
export async function limiterExactness(
  platform: LocalPlatform,
  clock: ManualClock,
  options: BenchOptions,
): Promise<Figure> {
  const concurrency = options.smoke ? 16 : 64;
  const results: Record<
    string,
    {
      limit: number;
      at: { sent: number; accepted: number };
      above: { sent: number; accepted: number; refused429: number; other: number };
    }
  > = {};
  let minute = 1;
  const burst = async (plan: PlanId, sent: number) => {
    clock.set(minuteStart(minute++));
    const key = await platform.issueKey(platform.demoAccounts[plan], `bench ${plan} ${sent}`);
    const statuses = await pool(sent, concurrency, async () => {
      const res = await fetch(`${platform.baseUrl}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'limit probe' }),
      });
      await res.arrayBuffer();
      return res.status;
    });
    return {
      sent,
      accepted: statuses.filter((s) => s === 202).length,
      refused429: statuses.filter((s) => s === 429).length,
      other: statuses.filter((s) => s !== 202 && s !== 429).length,
    };
  };
  for (const plan of PLAN_IDS) {
    const limit = platform.config.plans[plan].limits.perMinute;
    const at = await burst(plan, limit);
    const above = await burst(plan, Math.ceil(limit * 1.2) + 2);
    results[plan] = { limit, at: { sent: at.sent, accepted: at.accepted }, above };
  }
  const exact = Object.values(results).every((r) => r.at.accepted === r.limit && r.above.accepted === r.limit);
  return {
    figure: 'limiter-exactness (accepted/limit per plan: at limit; above limit)',
    value: Object.entries(results)
      .map(([plan, r]) => `${plan} ${r.at.accepted}/${r.limit}; ${r.above.accepted}/${r.limit} of ${r.above.sent}`)
      .join(', '),
    goal: 'accepted = limit exactly',
    pass: exact,
    details: { concurrency, plans: results },
  };
}
