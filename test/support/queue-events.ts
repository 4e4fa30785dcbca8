import type { HandledBatch, QueuePoller } from '../../local/queue-poller.js';

/** Watches the local worker's batches (QueuePoller's `batch` event) for the envelopes it settled. */
export interface SettledWatch {
  /**
   * Resolves once the envelope of each id was handled and deleted from the queue (not reported as
   * a failure): after that no delivery of it can come, so a test may count what the worker did.
   */
  until(ids: Iterable<string>): Promise<void>;
  stop(): void;
}

const idOf = (body: string): string | undefined => {
  try {
    return (JSON.parse(body) as { id?: string }).id;
  } catch {
    return undefined;
  }
};

/** Start it before the envelopes can reach the worker. Waits on events, never on a sleep. */
export function watchSettled(worker: QueuePoller): SettledWatch {
  const settled = new Set<string>();
  let waiters: Array<{ ids: readonly string[]; resolve: () => void }> = [];
  const listener = (batch: HandledBatch) => {
    const failed = new Set(batch.failed);
    for (const body of batch.bodies) {
      const id = failed.has(body) ? undefined : idOf(body);
      if (id) settled.add(id);
    }
    waiters = waiters.filter((w) => {
      if (!w.ids.every((id) => settled.has(id))) return true;
      w.resolve();
      return false;
    });
  };
  worker.events.on('batch', listener);
  return {
    until(ids) {
      const list = [...ids];
      if (list.every((id) => settled.has(id))) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ ids: list, resolve }));
    },
    stop: () => worker.events.off('batch', listener),
  };
}
