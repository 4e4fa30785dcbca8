import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { UsageHistoryView } from '../../cli/operator-client.js';
import { BANNED_FLUSH_INTERVAL_MS } from '../../lambda/rate-limits/banned-refusals.js';
import { DynamoDbLimiterStore } from '../../lambda/rate-limits/index.js';
import { many, send, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Issue 25 item 6: after a flood stops, the 30-day history shows at least 95 % of its refusals
// within a minute, while the flood costs at most one write per container per 5 s. A key is flooded
// past its ban on the local platform (one process: one "container"); the platform's clock stands
// still during the flood and is then moved by hand, so nothing here sleeps.
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform?.stop();
});

async function history(accountId: string): Promise<UsageHistoryView> {
  const res = await fetch(`${platform.controlUrl}/accounts/${accountId}/usage/history?days=1`);
  expect(res.status).toBe(200);
  return (await res.json()) as UsageHistoryView;
}

describe('banned refusals after a flood', () => {
  it('are in the history within seconds of its end, at one count write per 5 s', async () => {
    const { threshold } = platform.config.plans.free.ban;
    const account = await platform.accountService.createAccount({ name: 'Flood', plan: 'free' });
    const { secret } = await platform.accountService.createKey(account.accountId, 'flood');
    const perMinute = platform.config.plans.free.limits.perMinute;

    // Spend the minute, then keep going: threshold rate-limited 429s, then the ban.
    const accepted = await many(perMinute, 8, () => send(platform, secret, 'fill'));
    expect(accepted.every((a) => a.status === 202)).toBe(true);
    const strikes = await many(threshold + 1, 1, () => send(platform, secret, 'over'));
    expect(strikes.at(-1)?.body.code).toBe('key_banned');

    const countWrites = vi.spyOn(DynamoDbLimiterStore.prototype, 'adjustCounters');
    try {
      const flood = 110;
      const refused = await many(flood, 8, () => send(platform, secret, 'flood'));
      expect(refused.every((a) => a.body.code === 'key_banned')).toBe(true);
      // During the flood (the clock stands still): at most one count write.
      expect(countWrites.mock.calls.length).toBeLessThanOrEqual(1);

      // The flood has stopped. One interval later the container's trailing write has gone out.
      platform.clock.advance(BANNED_FLUSH_INTERVAL_MS);
      await platform.clock.settled();
      expect(countWrites.mock.calls.length).toBeLessThanOrEqual(2);
      const view = await history(account.accountId);
      // The ban's own request counts as rate-limited; every refusal after it as banned.
      expect(view.totals.banned).toBeGreaterThanOrEqual(Math.ceil(0.95 * flood));
      expect(view.totals.banned).toBeLessThanOrEqual(flood);
    } finally {
      countWrites.mockRestore();
    }
  }, 60_000);
});
