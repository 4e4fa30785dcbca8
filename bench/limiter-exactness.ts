import { PLAN_IDS, type PlanId } from '../lib/config/index.js';
import type { LocalPlatform } from '../local/platform.js';
import type { ManualClock } from '../test/support/clock.js';
import { type BenchOptions, type Figure, pool } from './lib.js';

/** First millisecond of the minute `minutesAhead` from now, plus 5 s. */
const minuteStart = (minutesAhead: number) => (Math.floor(Date.now() / 60_000) + minutesAhead) * 60_000 + 5_000;

/** Keys per account: limits belong to the account, so every burst is spread over several keys. */
const KEYS_PER_ACCOUNT = 3;

/**
 * For each plan: on a fresh account, exactly `limit` concurrent POSTs spread over its keys (all
 * must be accepted), and on another fresh account `limit` × 1.2 (+2) concurrent POSTs over its
 * keys (exactly `limit` accepted), over real HTTP. The platform runs on a manual clock: each burst
 * gets a minute of its own, so no window rolls over mid-burst and the usage-plan backstop (one
 * internal key per account) starts each burst full.
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
      above: { sent: number; accepted: number; refused429: number; other: number; perKey: number[] };
    }
  > = {};
  let minute = 1;
  const burst = async (plan: PlanId, sent: number) => {
    clock.set(minuteStart(minute++));
    const account = await platform.accountService.createAccount({ name: `bench ${plan} ${sent}`, plan });
    const keys: string[] = [];
    for (let k = 0; k < KEYS_PER_ACCOUNT; k++) keys.push(await platform.issueKey(account, `bench key ${k}`));
    const answers = await pool(sent, concurrency, async (i) => {
      const res = await fetch(`${platform.baseUrl}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[i % keys.length]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'limit probe' }),
      });
      await res.arrayBuffer();
      return { status: res.status, key: i % keys.length };
    });
    return {
      sent,
      accepted: answers.filter((a) => a.status === 202).length,
      refused429: answers.filter((a) => a.status === 429).length,
      other: answers.filter((a) => a.status !== 202 && a.status !== 429).length,
      perKey: keys.map((_, k) => answers.filter((a) => a.key === k && a.status === 202).length),
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
    figure: `limiter-exactness (accepted/limit per account of ${KEYS_PER_ACCOUNT} keys, per plan: at limit; above limit)`,
    value: Object.entries(results)
      .map(([plan, r]) => `${plan} ${r.at.accepted}/${r.limit}; ${r.above.accepted}/${r.limit} of ${r.above.sent} (per key ${r.above.perKey.join('+')})`)
      .join(', '),
    goal: 'accepted = limit exactly, whichever keys send',
    pass: exact,
    details: { concurrency, keysPerAccount: KEYS_PER_ACCOUNT, plans: results },
  };
}
