import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger, metrics } from '../shared/powertools.js';
import type { AcceptedUsageRecorder } from './ports.js';
import { utcDate } from './usage-days.js';

/**
 * The accepted messages of one worker batch, added up per account and UTC day of acceptance, so
 * the batch costs one history write per account and day rather than one per message. The worker
 * counts a message only on the transition it made itself (queued → processed, or queued → failed
 * once dead-lettered), which DynamoDB lets happen once: a redelivery finds it done and is not
 * counted again, and a redriven failed message was counted when it failed.
 */
export class AcceptedTally {
  /** `<accountId> <date>` → keyId → count. */
  private readonly groups = new Map<string, Map<string, number>>();

  count(accountId: string, keyId: string, acceptedAt: string): void {
    const group = `${accountId} ${utcDate(Date.parse(acceptedAt))}`;
    const perKey = this.groups.get(group) ?? new Map<string, number>();
    perKey.set(keyId, (perKey.get(keyId) ?? 0) + 1);
    this.groups.set(group, perKey);
  }

  /** The counts so far: `<accountId> <date>` → keyId → count. */
  counts(): ReadonlyMap<string, ReadonlyMap<string, number>> {
    return this.groups;
  }

  /**
   * Writes every group, all at once. A failed write is logged and counted in a metric, never
   * thrown: the messages are processed either way, and failing them would not count them again
   * (a redelivery finds them done). So accepted counts are never counted twice by the worker, and
   * may fall short by what a failed write held.
   */
  async flush(recorder: AcceptedUsageRecorder): Promise<void> {
    const groups = [...this.groups];
    this.groups.clear();
    await Promise.all(
      groups.map(async ([group, perKey]) => {
        const [accountId, date] = group.split(' ') as [string, string];
        try {
          await recorder.addAccepted(accountId, date, perKey);
        } catch (error) {
          const messages = [...perKey.values()].reduce((a, b) => a + b, 0);
          metrics.addMetric('UsageHistoryNotWritten', MetricUnit.Count, messages);
          logger.error('accepted messages not added to the usage history', { accountId, date, messages, error: error as Error });
        }
      }),
    );
  }
}
