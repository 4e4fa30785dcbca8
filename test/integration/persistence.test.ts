import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, eventually, send, startTestPlatform } from '../support/platform.js';

// `--data DIR`: state survives a restart; messages still queued at shutdown are processed after it.
const dataDir = mkdtempSync(join(tmpdir(), 'platform-data-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('--data DIR', () => {
  it('keeps records and keys across a restart, and processes messages that were still queued', async () => {
    const first = await startTestPlatform({ dataDir, worker: false });
    const key = first.demoKeys.pro;
    const sent = await send(first, key, 'survives a restart');
    expect(sent.status).toBe(202);
    await first.stop();

    const second = await startTestPlatform({ dataDir });
    try {
      // The key issued by the first run still works; the record is there and gets processed.
      const processed = await eventually(async () => {
        const answer = await call(second, `/messages/${sent.body.id}`, { key });
        return answer.body.status === 'processed' ? answer : undefined;
      });
      expect(processed.body).toMatchObject({ id: sent.body.id, message: 'survives a restart' });
      expect(second.demoKeys.pro).not.toBe(key);
    } finally {
      await second.stop();
    }
  });
});
