import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { UsageHistoryView } from '../../cli/operator-client.js';
import { BANNED_FLUSH_INTERVAL_MS } from '../../lambda/rate-limits/banned-refusals.js';
import { eventually, many, send, startTestPlatform, type TestPlatform } from '../support/platform.js';

// The usage history end to end on the local platform: real requests through the local API, the
// local worker counting what it processed, the limiter counting its refusals; read through the
// control API and the CLI. The platform's clock is moved by hand, so the banned refusals a
// container holds before writing them are known exactly.
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform?.stop();
});

const DAY_MS = 86_400_000;
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function history(accountId: string, days?: number): Promise<UsageHistoryView> {
  const res = await fetch(`${platform.controlUrl}/accounts/${accountId}/usage/history${days ? `?days=${days}` : ''}`);
  expect(res.status).toBe(200);
  return (await res.json()) as UsageHistoryView;
}

const cli = (...argv: string[]) => runCli([...argv, '--url', platform.controlUrl]);

const codes = (answers: ReadonlyArray<{ status: number; body: Record<string, unknown> }>) =>
  answers.map((a) => (a.status === 202 ? 'accepted' : String(a.body.code)));

describe('usage history from real requests', () => {
  let accountId: string;
  let busyId: string;
  let spareId: string;
  const today = () => utcDate(platform.clock.now());

  it('counts accepted messages once processed, rate-limited and banned 429s, per key (revoked too) and in all', async () => {
    const { threshold } = platform.config.plans.free.ban;
    const account = await platform.accountService.createAccount({ name: 'History', plan: 'free' });
    accountId = account.accountId;
    const busy = await platform.accountService.createKey(accountId, 'busy');
    // A millisecond later: keys are listed oldest first, and the clock stands still otherwise.
    platform.clock.advance(1);
    const spare = await platform.accountService.createKey(accountId, 'spare');
    busyId = busy.key.keyId;
    spareId = spare.key.keyId;

    expect(codes(await many(2, 2, () => send(platform, spare.secret, 'from spare')))).toEqual(['accepted', 'accepted']);
    await platform.accountService.revokeKey(accountId, spareId);
    expect(codes(await many(58, 8, () => send(platform, busy.secret, 'from busy')))).toEqual(Array(58).fill('accepted'));
    // Over the Free minute: the strikes up to the threshold are rate_limited, the next one bans the key.
    const refused = codes(await many(threshold + 1, 1, () => send(platform, busy.secret, 'over')));
    expect(refused).toEqual([...Array<string>(threshold).fill('rate_limited'), 'key_banned']);
    // Banned: the container writes its first banned refusal at once and holds the next ones...
    expect(codes(await many(4, 1, () => send(platform, busy.secret, 'banned')))).toEqual(Array(4).fill('key_banned'));
    const held = await eventually(async () => {
      const view = await history(accountId, 1);
      return view.totals.accepted === 60 ? view : undefined;
    }, 10_000, 50);
    expect(held.totals).toEqual({ accepted: 60, rateLimited: threshold + 1, banned: 1 });

    // ...until BANNED_FLUSH_INTERVAL_MS after its last write, when a trailing write takes them all.
    expect(codes([await send(platform, busy.secret, 'banned')])).toEqual(['key_banned']);
    platform.clock.advance(BANNED_FLUSH_INTERVAL_MS);
    await platform.clock.settled();
    const view = await history(accountId, 1);
    expect(view).toEqual({
      accountId,
      from: today(),
      to: today(),
      refusalsApproximate: true,
      totals: { accepted: 60, rateLimited: threshold + 1, banned: 5 },
      days: [{ date: today(), accepted: 60, rateLimited: threshold + 1, banned: 5 }],
      keys: [
        {
          keyId: busyId, name: 'busy', prefix: busy.key.prefix, last4: busy.key.last4, status: 'active',
          totals: { accepted: 58, rateLimited: threshold + 1, banned: 5 },
          days: [{ date: today(), accepted: 58, rateLimited: threshold + 1, banned: 5 }],
        },
        {
          keyId: spareId, name: 'spare', prefix: spare.key.prefix, last4: spare.key.last4, status: 'revoked',
          revokedAt: expect.any(String) as string,
          totals: { accepted: 2, rateLimited: 0, banned: 0 },
          days: [{ date: today(), accepted: 2, rateLimited: 0, banned: 0 }],
        },
      ],
    });
  });

  it('counts on the UTC day of acceptance, zero-fills the days between, and keeps the earlier days', async () => {
    const first = today();
    platform.clock.advance(2 * DAY_MS);
    const busy = await platform.accountService.createKey(accountId, 'next day');
    expect((await send(platform, busy.secret, 'two days later')).status).toBe(202);
    const view = await eventually(async () => {
      const answer = await history(accountId, 3);
      return answer.totals.accepted === 61 ? answer : undefined;
    }, 10_000, 50);
    expect(view.days).toEqual([
      { date: first, accepted: 60, rateLimited: platform.config.plans.free.ban.threshold + 1, banned: 5 },
      { date: utcDate(platform.clock.now() - DAY_MS), accepted: 0, rateLimited: 0, banned: 0 },
      { date: today(), accepted: 1, rateLimited: 0, banned: 0 },
    ]);
    expect(view.keys.map((k) => [k.name, k.totals.accepted])).toEqual([['busy', 58], ['spare', 2], ['next day', 1]]);
    expect((await history(accountId, 2)).totals.accepted).toBe(1);
  });

  it('is the CLI\'s usage history: a table of days with totals, or the API\'s document with --json', async () => {
    const text = await cli('usage', 'history', '--account', accountId, '--days', '3');
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toBe(`Account ${accountId}, ${utcDate(platform.clock.now() - 2 * DAY_MS)} to ${today()} (UTC days)`);
    expect(lines[1]).toMatch(/^day \(UTC\)\s+accepted\s+rate limited\s+banned$/);
    expect(lines[5]?.split(/\s+/)).toEqual(['total', '61', String(platform.config.plans.free.ban.threshold + 1), '5']);
    expect(text.stdout).toContain('Refused counts (rate limited, banned) are approximate');
    expect(text.stdout).toMatch(/spare\s+revoked \d{4}-\d{2}-\d{2}T/);

    const json = await cli('usage', 'history', '--account', accountId, '--days', '3', '--json');
    expect(JSON.parse(json.stdout)).toEqual(await history(accountId, 3));

    const tooMany = await cli('usage', 'history', '--account', accountId, '--days', '31');
    expect([tooMany.code, tooMany.stderr.split('\n')[0]]).toEqual([2, 'error: --days must be from 1 to 30, got 31']);
    const unknown = await cli('usage', 'history', '--account', 'acct_missing');
    expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([1, 'error: No account acct_missing.']);
  });
});
