import { describe, expect, it, vi } from 'vitest';
import { AcceptedTally } from '../../../lambda/usage-history/accepted-tally.js';
import type { AcceptedUsageRecorder } from '../../../lambda/usage-history/ports.js';
import { logger } from '../../../lambda/shared/powertools.js';

class RecordingRecorder implements AcceptedUsageRecorder {
  readonly writes: Array<[string, string, Record<string, number>]> = [];
  failFor: string | undefined;
  async addAccepted(accountId: string, date: string, perKey: ReadonlyMap<string, number>): Promise<void> {
    if (accountId === this.failFor) throw new Error('throttled');
    this.writes.push([accountId, date, Object.fromEntries(perKey)]);
  }
}

describe('AcceptedTally', () => {
  it('writes one group per account and UTC day of acceptance, with each key\'s count', async () => {
    const tally = new AcceptedTally();
    tally.count('acct_1', 'key_a', '2026-11-21T10:00:00.000Z');
    tally.count('acct_1', 'key_a', '2026-11-21T23:59:59.999Z');
    tally.count('acct_1', 'key_b', '2026-11-21T12:00:00.000Z');
    tally.count('acct_1', 'key_a', '2026-11-22T00:00:00.000Z');
    tally.count('acct_2', 'key_c', '2026-11-21T12:00:00.000Z');
    const recorder = new RecordingRecorder();
    await tally.flush(recorder);
    expect(recorder.writes).toEqual([
      ['acct_1', '2026-11-21', { key_a: 2, key_b: 1 }],
      ['acct_1', '2026-11-22', { key_a: 1 }],
      ['acct_2', '2026-11-21', { key_c: 1 }],
    ]);
    expect(tally.counts().size).toBe(0);
  });

  it('never throws for a failed write: the other groups are written', async () => {
    const tally = new AcceptedTally();
    tally.count('acct_1', 'key_a', '2026-11-21T10:00:00.000Z');
    tally.count('acct_2', 'key_c', '2026-11-21T10:00:00.000Z');
    const recorder = Object.assign(new RecordingRecorder(), { failFor: 'acct_1' });
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    await expect(tally.flush(recorder)).resolves.toBeUndefined();
    expect(recorder.writes).toEqual([['acct_2', '2026-11-21', { key_c: 1 }]]);
    expect(logged).toHaveBeenCalledTimes(1);
    logged.mockRestore();
  });
});
