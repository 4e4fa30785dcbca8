import { useCallback } from 'react';
import { errorMessage } from '../../api';
import { usePolling } from '../../components/usePolling';
import { useApp } from '../../context';
import type { Domain } from '../../types';
import { IN_PROGRESS } from '../domain-parts';

const POLL_MS = 1000;

/**
 * Live progress: while the flow works on the domain (verifying, issuing the certificate), reads it
 * again every second (while the tab is visible) and hands each new version to `onChange`. A failed
 * read is reported through `onError` and retried with backoff; `onError(undefined)` once a read
 * succeeds again.
 */
export function useDomainPolling(
  projectId: string,
  domain: Domain,
  onChange: (domain: Domain) => void,
  onError: (message: string | undefined) => void,
): void {
  const { api, me } = useApp();
  const accountId = me.account.accountId;
  const name = domain.domain;
  const read = useCallback(async () => {
    try {
      const next = await api.domain(accountId, projectId, name);
      onError(undefined);
      onChange(next);
    } catch (e) {
      onError(`Could not refresh the status: ${errorMessage(e)} Retrying…`);
      throw e;
    }
  }, [api, accountId, projectId, name, onChange, onError]);
  usePolling(read, { intervalMs: POLL_MS, maxIntervalMs: POLL_MS * 16, enabled: IN_PROGRESS.has(domain.state) });
}
