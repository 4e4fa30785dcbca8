import { formatDateTime } from '../format';

export function Time({ iso }: { readonly iso: string }) {
  return <time dateTime={iso} title={iso}>{formatDateTime(iso)}</time>;
}
