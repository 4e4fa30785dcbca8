import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestPlatform } from '../support/platform.js';

// API keys exist only as hashes at rest and never reach a log: checked at DEBUG level, where
// every log line of the handlers and the authorizer is written. The level is read when the
// handler modules load, so it is set before they are imported (vitest isolates each file).
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
const { call, send, startTestPlatform } = await import('../support/platform.js');
const { hashApiKey } = await import('../../lambda/keys/api-key-format.js');
const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
const { createDocumentClient } = await import('../../lambda/shared/dynamodb.js');
const { LOCAL_AWS } = await import('../../local/emulators.js');

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.stop());

describe('API key secrets', () => {
  it('never appear in logs (DEBUG) or in any table', async () => {
    const captured: string[] = [];
    const originalOut = process.stdout.write.bind(process.stdout);
    const originalErr = process.stderr.write.bind(process.stderr);
    const capture = (chunk: unknown) => {
      captured.push(String(chunk));
      return true;
    };
    process.stdout.write = capture as typeof process.stdout.write;
    process.stderr.write = capture as typeof process.stderr.write;
    let secret = '';
    try {
      const created = await platform.accountService.createKey(platform.demoAccounts.pro.accountId, 'logged?');
      secret = created.secret;
      await send(platform, secret, 'hello');
      await call(platform, '/messages', { key: secret, body: 'not json' });
      await call(platform, '/nope', { key: secret });
      await call(platform, '/messages', { headers: { Authorization: `Basic ${secret}` }, body: { message: 'x' } });
      await call(platform, '/messages', { headers: { Authorization: `Bearer ${secret}x` }, body: { message: 'x' } });
      await platform.accountService.revokeKey(platform.demoAccounts.pro.accountId, created.key.keyId);
      await send(platform, secret, 'revoked');
    } finally {
      process.stdout.write = originalOut;
      process.stderr.write = originalErr;
    }
    const logs = captured.join('');
    // Logging really ran through every path above.
    for (const line of ['caller identified', 'message accepted', 'request refused']) expect(logs).toContain(line);
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(secret.slice(8, 30));

    const documents = createDocumentClient({ ...LOCAL_AWS, endpoint: platform.endpoints.dynamodb });
    for (const table of Object.values(platform.tables)) {
      const items = JSON.stringify((await documents.send(new ScanCommand({ TableName: table }))).Items);
      expect(items, table).not.toContain(secret);
      expect(items, table).not.toContain(secret.slice(8, 30));
    }
    const keys = JSON.stringify((await documents.send(new ScanCommand({ TableName: platform.tables.apiKeys }))).Items);
    expect(keys).toContain(hashApiKey(secret));
    documents.destroy();
  });
});
