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
    // Why, and until when: the only ban there is, the rate limiter's (lambda/keys: a key that keeps
    // sending after 429 answers is refused for a while; the account's other keys are not).
    return (
      <>
        <Badge tone="error">Banned</Badge>
        <span className="hint block key-ban">
          Rate-limit ban: it kept sending after 429 answers. Refused until <Time iso={keyView.bannedUntil} />.
        </span>
      </>
    );
  }
  return <Badge tone="success">Active</Badge>;
}
