import type { Key } from '../types';
import { Badge } from './Badge';
import { Time } from './Time';

/**
 * A key's status as the Messages API treats it now: Revoked (for good), Banned (refused until the
 * ban ends), or Active. The same words on every page that lists keys.
 */
export function KeyStatus({ keyView }: { readonly keyView: Key }) {
  if (keyView.status === 'revoked') {
    return (
      <>
        <Badge tone="neutral">Revoked</Badge>
        {keyView.revokedAt ? <span className="hint block"><Time iso={keyView.revokedAt} /></span> : null}
      </>
    );
  }
  if (keyView.bannedUntil) {
    return (
      <>
        <Badge tone="error">Banned</Badge>
        <span className="hint block">until <Time iso={keyView.bannedUntil} /></span>
      </>
    );
  }
  return <Badge tone="success">Active</Badge>;
}
