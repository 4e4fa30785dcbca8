import { useEffect, useRef } from 'react';

export interface PollingOptions {
  /** Between two reads while they succeed. */
  readonly intervalMs: number;
  /** After each failed read the interval doubles, up to this. @default 8 × intervalMs */
  readonly maxIntervalMs?: number;
  /** @default true */
  readonly enabled?: boolean;
}

/**
 * Reads again every `intervalMs` while the page is visible: stopped while the tab is hidden (no
 * requests nobody sees), and one read at once when it becomes visible again, then on schedule.
 * A read that throws backs off (doubling, up to `maxIntervalMs`); a success goes back to the interval.
 * The first read is the page's own load: polling starts one interval later.
 */
export function usePolling(read: () => Promise<unknown>, options: PollingOptions): void {
  const { intervalMs, maxIntervalMs = intervalMs * 8, enabled = true } = options;
  // The latest read, without restarting the schedule on every render.
  const latest = useRef(read);
  useEffect(() => {
    latest.current = read;
  }, [read]);

  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    let timer: number | undefined;
    let reading = false;
    let delay = intervalMs;

    const schedule = () => {
      window.clearTimeout(timer);
      timer = undefined;
      if (!stopped && !reading && document.visibilityState === 'visible') timer = window.setTimeout(() => void tick(), delay);
    };
    const tick = async () => {
      if (stopped || reading) return;
      reading = true;
      try {
        await latest.current();
        delay = intervalMs;
      } catch {
        delay = Math.min(delay * 2, maxIntervalMs);
      } finally {
        reading = false;
      }
      schedule();
    };
    const onVisibility = () => {
      if (document.visibilityState === 'visible') {
        window.clearTimeout(timer);
        void tick();
      } else {
        window.clearTimeout(timer);
        timer = undefined;
      }
    };

    document.addEventListener('visibilitychange', onVisibility);
    schedule();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [enabled, intervalMs, maxIntervalMs]);
}
