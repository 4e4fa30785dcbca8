import { useEffect, useState } from 'react';

/**
 * The current time, again every `intervalMs` while mounted: countdowns derived from it and a fixed
 * timestamp move one step at a time, not when a refresh brings the same timestamp again.
 */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return now;
}
