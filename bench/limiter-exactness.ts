import { loadConfig, PLAN_IDS, type PlanId } from '../lib/config/index.js';
import type { LocalPlatform } from '../local/platform.js';
import { ManualClock } from '../test/support/clock.js';
import { many, minuteStart, send } from '../test/support/platform.js';
import { type BenchOptions, type Figure, onPlatform } from './lib.js';

/** Keys per account: limits belong to the account, so every burst is spread over several keys. */
const KEYS_PER_ACCOUNT = 3;

const SMOKE_LIMITS = {
  plans: {
    free: { limits: { perMinute: 5, perDay: 100 } },
    pro: { limits: { perMinute: 10, perDay: 100 } },
    business: { limits: { perMinute: 20, perDay: 200 } },
    enterprise: { limits: { perMinute: 30, perDay: 300 } },
  },
};

/** Business and Enterprise lowered to stay within 10 minutes (exactness does not depend on the limit's size). */
const FULL_LIMITS = {
  plans: {
    business: { limits: { perMinute: 400, perDay: 100_000 } },
    enterprise: { limits: { perMinute: 500, perDay: 1_000_000 } },
  },
};

/** Bursts at and above each plan's limit, each in a minute of its own: bench/README.md, "limiter-exactness". */
export async function limiterExactness(options: BenchOptions): Promise<Figure> {
  const clock = new ManualClock();
  const config = loadConfig(options.smoke ? SMOKE_LIMITS : FULL_LIMITS);
  return onPlatform({ worker: false, clock, config }, (platform) => bursts(platform, clock, options));
}

async function bursts(platform: LocalPlatform, clock: ManualClock, options: BenchOptions): Promise<Figure> {
  const concurrency = options.smoke ? 16 : 64;
  let minute = 0;
  const burst = async (plan: PlanId, sent: number) => {
    clock.set(minuteStart() + minute++ * 60_000);
    const account = await platform.accountService.createAccount({ name: `bench ${plan} ${sent}`, plan });
    const keys: string[] = [];
    for (let k = 0; k < KEYS_PER_ACCOUNT; k++) keys.push(await platform.issueKey(account, `bench key ${k}`));
    const answers = await many(sent, concurrency, async (i) => {
      const { status } = await send(platform, keys[i % keys.length], 'limit probe', { checkSpec: false });
      return { status, key: i % keys.length };
    });
    return {
      sent,
      accepted: answers.filter((a) => a.status === 202).length,
      refused429: answers.filter((a) => a.status === 429).length,
      other: answers.filter((a) => a.status !== 202 && a.status !== 429).length,
      perKey: keys.map((_, k) => answers.filter((a) => a.key === k && a.status === 202).length),
    };
  };
  type Burst = Awaited<ReturnType<typeof burst>>;
  const results: Record<string, { limit: number; at: Pick<Burst, 'sent' | 'accepted'>; above: Burst }> = {};
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
