import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger, metrics } from '../shared/powertools.js';
import type { AcceptedUsageRecorder } from './ports.js';
import { utcDate } from '../rate-limits/index.js';

/**
 * The accepted messages of one worker batch per account and UTC day: one history write each. The
 * worker counts a message only on the transition it made itself, so a redelivery is not counted again.
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

  counts(): ReadonlyMap<string, ReadonlyMap<string, number>> {
    return this.groups;
  }

  /** Writes every group. A failed write is logged and counted in a metric, never thrown: counts may fall short, never double. */
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
