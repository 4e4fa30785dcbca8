const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const number = new Intl.NumberFormat();

export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));
export const formatTime = (iso: string) => time.format(new Date(iso));
export const formatNumber = (n: number) => number.format(n);

/** Sizes in decimal units (1 MB = 1,000,000 bytes), as the deploy limit is stated. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(2)} MB`;
}

/** "in 42 s", "in 3 min", "in 5 h" (for resets and bans). */
export function formatIn(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.ceil((Date.parse(iso) - now) / 1000));
  if (seconds === 0) return 'now';
  if (seconds < 90) return `in ${seconds} s`;
  if (seconds < 90 * 60) return `in ${Math.round(seconds / 60)} min`;
  return `in ${Math.round(seconds / 3600)} h`;
}
