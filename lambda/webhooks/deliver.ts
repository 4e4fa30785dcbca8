import type { Clock } from '../shared/clock.js';
import type { WebhookPoster } from './http-sender.js';
import type { DeliveryJob } from './model.js';
import type { DeliveryQueue, WebhookStore } from './ports.js';
import { DISABLE_AFTER_FAILING_MS, MAX_HOP_SECONDS, nextAttemptAt } from './retry-schedule.js';
import { activeSecrets, signedHeaders } from './signing.js';

export interface DeliverDeps {
  readonly store: WebhookStore;
  readonly queue: DeliveryQueue;
  readonly post: WebhookPoster;
  readonly clock: Clock;
  /** @default MAX_HOP_SECONDS */
  readonly maxHopSeconds?: number;
  /** How long a claimed attempt may stay unrecorded before another job takes it over: longer than a run. */
  readonly staleClaimMs: number;
}

/** One delivery job (docs/webhooks.md, "How it works"); rejects only when the store or the queue failed. */
export async function deliver(
  job: DeliveryJob,
  deps: DeliverDeps,
): Promise<'waiting' | 'duplicate' | 'abandoned' | 'succeeded' | 'retrying' | 'failed'> {
  const now = deps.clock.now();
  const hopSeconds = (dueAt: number, from: number) =>
    Math.min(deps.maxHopSeconds ?? MAX_HOP_SECONDS, Math.ceil((dueAt - from) / 1000));
  if (job.dueAt > now) {
    await deps.queue.enqueueLater(job, hopSeconds(job.dueAt, now));
    return 'waiting';
  }
  const endpoint = await deps.store.getEndpoint(job.accountId, job.webhookId);
  if (!endpoint || endpoint.status !== 'enabled') {
    await deps.store.abandon(job, endpoint?.url ?? '', endpoint ? 'endpoint_disabled' : 'endpoint_removed');
    return 'abandoned';
  }
  if (!(await deps.store.claimAttempt(job, endpoint.url, now, deps.staleClaimMs))) return 'duplicate';

  const at = new Date(now);
  const headers = signedHeaders(job.eventId, job.payload, at, activeSecrets(endpoint.secrets, now));
  const outcome = await deps.post(endpoint.url, headers, job.payload);
  const attempt = {
    attempt: job.attempt + 1,
    at: at.toISOString(),
    durationMs: outcome.durationMs,
    ...(outcome.statusCode !== undefined ? { statusCode: outcome.statusCode } : {}),
    ...(outcome.error ? { error: outcome.error } : {}),
  };
  if (outcome.ok) {
    await deps.store.recordAttempt(job, attempt, { status: 'succeeded' });
    if (endpoint.failingSince !== undefined) await deps.store.clearFailing(job.accountId, job.webhookId);
    return 'succeeded';
  }

  const failedAt = deps.clock.now();
  const firstAttemptAt = job.firstAttemptAt ?? now;
  // Attempts of this series: a re-send starts a new one (its job has no firstAttemptAt).
  const seriesAttempts = (job.retry ?? 0) + 1;
  const next = nextAttemptAt(seriesAttempts, failedAt);
  if (next !== undefined) {
    // The next job goes out before the record: if recording fails, SQS retries this job, which
    // finds its attempt taken, and the chain goes on.
    await deps.queue.enqueueLater(
      { ...job, attempt: job.attempt + 1, retry: seriesAttempts, dueAt: next, firstAttemptAt },
      hopSeconds(next, failedAt),
    );
    await deps.store.recordAttempt(job, attempt, { status: 'pending', nextAttemptAt: new Date(next).toISOString() });
  } else {
    await deps.store.recordAttempt(job, attempt, { status: 'failed', reason: 'retries_exhausted' });
  }

  const failingSince = await deps.store.markFailing(job.accountId, job.webhookId, failedAt);
  if (failingSince !== undefined && failedAt - failingSince >= DISABLE_AFTER_FAILING_MS) {
    const reason =
      `Every delivery attempt failed for 5 days (since ${new Date(failingSince).toISOString()}); ` +
      `the last: ${outcome.error ?? 'no answer'}.`;
    await deps.store.disable(job.accountId, job.webhookId, new Date(failedAt).toISOString(), reason);
  }
  return next !== undefined ? 'retrying' : 'failed';
}
