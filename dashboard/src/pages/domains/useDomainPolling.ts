import { useEffect, useState } from 'react';
import { errorMessage } from '../../api';
import { useApp } from '../../context';
import type { Domain } from '../../types';
import { IN_PROGRESS } from '../domain-parts';

const POLL_MS = 1000;

/**
 * Live progress: while the flow works on the domain (verifying, issuing the certificate), reads it
 * again every second and hands each new version to `onChange`. A failed read is reported through
 * `onError` and retried after three intervals; `onError(undefined)` once a read succeeds again.
 */
export function useDomainPolling(
  projectId: string,
  domain: Domain,
  onChange: (domain: Domain) => void,
  onError: (message: string | undefined) => void,
): void {
  const { api, me } = useApp();
  const accountId = me.account.accountId;
  const [retry, setRetry] = useState(0);

  useEffect(() => {
    if (!IN_PROGRESS.has(domain.state)) return;
    let cancelled = false;
    let retryTimer: number | undefined;
    const timer = window.setTimeout(() => {
      api.domain(accountId, projectId, domain.domain).then(
        (next) => {
          if (cancelled) return;
          onError(undefined);
          onChange(next);
        },
        (e: unknown) => {
          if (cancelled) return;
          onError(`Could not refresh the status: ${errorMessage(e)} Retrying…`);
          retryTimer = window.setTimeout(() => !cancelled && setRetry((t) => t + 1), POLL_MS * 3);
        },
      );
    }, POLL_MS);
    return () => {
      cancelled = true;
      window.clearTimeout(timer);
      window.clearTimeout(retryTimer);
    };
  }, [api, accountId, projectId, domain, onChange, onError, retry]);
}
