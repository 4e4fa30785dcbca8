import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../lambda/keys/api-key-format.js';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../lambda/shared/dynamodb.js';
import { LOCAL_AWS } from '../../local/emulators.js';
import { call, rateHeaders, send, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Issue 13: data of the per-key design (a platform deployed before per-account limits) moves to
// per-account budgets and one internal key per account with nothing lost. The earlier version's
// items are written as it wrote them; a restart with --data rebuilds the usage plans from them,
// as API Gateway still holds them after a deploy.
const dataDir = mkdtempSync(join(tmpdir(), 'platform-migration-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const ACCOUNT = 'acct_legacy';
const secrets = { a: generateApiKey(), b: generateApiKey(), c: generateApiKey() };

async function put(platform: TestPlatform, table: string, item: Record<string, unknown>): Promise<void> {
  const client = createDocumentClient({ ...LOCAL_AWS, endpoint: platform.endpoints.dynamodb });
  try {
    await client.send(new PutCommand({ TableName: table, Item: item }));
  } finally {
    client.destroy();
  }
}

async function migrate(platform: TestPlatform, accountId?: string) {
  const res = await fetch(`${platform.controlUrl}/maintenance/migrate-accounts`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(accountId ? { accountId } : {}),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe('accounts migrate: from per-key limits and internal keys', () => {
  it('keeps what the keys counted, their bans and their backstop, and ends with one internal key for the account', async () => {
    const first = await startTestPlatform({ dataDir, worker: false });
    try {
      await put(first, first.tables.accounts, { accountId: ACCOUNT, name: 'Legacy', plan: 'free', createdAt: '2026-01-01T00:00:00.000Z' });
      for (const [name, secret] of Object.entries(secrets)) {
        await put(first, first.tables.apiKeys, {
          keyHash: hashApiKey(secret),
          keyId: `key_legacy_${name}`,
          accountId: ACCOUNT,
          name,
          prefix: secret.slice(0, 12),
          last4: secret.slice(-4),
          status: 'active',
          plan: 'free',
          gatewayKeyId: `legacy-gk-${name}`,
          gatewayKeyValue: `legacy-value-of-${name}-0123456789`,
          createdAt: `2026-01-0${name === 'a' ? 1 : name === 'b' ? 2 : 3}T00:00:00.000Z`,
        });
      }
    } finally {
      await first.stop();
    }

    const platform = await startTestPlatform({ dataDir, worker: false });
    try {
      // The per-key limiter items as the earlier version left them this minute and day.
      const W = Math.floor(platform.clock.now() / 60_000);
      const D = Math.floor(platform.clock.now() / 86_400_000);
      const item = { status: 'active', minuteLimit: 60, dayLimit: 1_000 };
      await put(platform, platform.tables.rateLimits, { id: 'key#key_legacy_a', ...item, [`m${W}`]: 40, [`d${D}`]: 100, lastUsedAt: platform.clock.now() - 1_000 });
      await put(platform, platform.tables.rateLimits, { id: 'key#key_legacy_b', ...item, [`m${W}`]: 15, [`d${D}`]: 20 });
      await put(platform, platform.tables.rateLimits, { id: 'key#key_legacy_c', ...item, banUntil: platform.clock.now() + 600_000 });

      // The keys work before the migration: through their own internal keys (restored usage plans).
      expect((await send(platform, secrets.b, 'before the migration')).status).toBe(202);

      const report = await migrate(platform, ACCOUNT);
      expect(report).toMatchObject({
        accountId: ACCOUNT,
        internalKeys: { kept: 0, adopted: 1, created: 0, pooled: 0 },
        keysRebound: 2,
        limiterItemsMoved: 3,
        formerKeysDeleted: 0,
        changed: [],
      });
      expect((report.formerKeysPending as Array<{ keyId: string }>).map((p) => p.keyId)).toEqual(['key_legacy_b', 'key_legacy_c']);

      // Nothing lost: 40 + 15 counted by the keys' items, and the one request since the deploy.
      const usage = await platform.accountService.usage(ACCOUNT);
      expect(usage.minute).toMatchObject({ used: 56, remaining: 4 });
      expect(usage.day).toMatchObject({ used: 121 });
      expect(usage.keys.map((k) => [k.name, k.used.minute, k.bannedUntil !== undefined])).toEqual([
        ['a', 40, false],
        ['b', 16, false],
        ['c', 0, true],
      ]);

      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await send(platform, secrets.a, `#${i}`));
      expect(answers.map((x) => x.status)).toEqual([202, 202, 202, 202, 429]);
      expect(rateHeaders(answers[3]?.headers as Headers).remaining).toBe(0);
      expect((await send(platform, secrets.c, 'banned')).body.code).toBe('key_banned');

      // After the authorizer cache TTL, a second run deletes the keys' own internal keys; every
      // key reaches the limiter through the account's one internal key (a 429 with headers, not
      // the backstop's refusal).
      platform.clock.advance((platform.config.auth.keyCacheSeconds + 5) * 1000);
      const second = await migrate(platform);
      expect(second).toMatchObject({ formerKeysDeleted: 2, formerKeysPending: [] });
      expect(second).toMatchObject({ keysRebound: 0, limiterItemsMoved: 0 });
      platform.clock.advance(60_000);
      for (const secret of [secrets.a, secrets.b]) {
        const answer = await send(platform, secret, 'after the cleanup');
        expect(answer.status).toBe(202);
      }
      expect((await call(platform, '/messages/msg_7ZZZZZZZZZZZZZZZZZZZZZZZZZ', { key: secrets.b })).status).toBe(404);
    } finally {
      await platform.stop();
    }
  });
});
