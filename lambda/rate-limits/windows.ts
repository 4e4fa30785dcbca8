/** Fixed windows aligned to UTC: the minute (:00–:59) and the day (from 00:00 UTC). */
export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

export interface Windows {
  readonly minute: number;
  readonly day: number;
}

export function windowsAt(nowMs: number): Windows {
  return { minute: Math.floor(nowMs / MINUTE_MS), day: Math.floor(nowMs / DAY_MS) };
}

export const minuteWindowEndMs = (minute: number) => (minute + 1) * MINUTE_MS;
export const dayWindowEndMs = (day: number) => (day + 1) * DAY_MS;
