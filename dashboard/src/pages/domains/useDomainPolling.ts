import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { errorMessage } from '../../api';
import { useApp } from '../../context';
import { queryKeys } from '../../queries';
import type { Domain } from '../../types';
import { IN_PROGRESS } from '../domain-parts';

const POLL_MS = 1000;

/** While the flow works on the domain, reads it every second for `onChange`; a failed read goes to `onError`, retried. */
export function useDomainPolling(
  projectId: string,
  domain: Domain,
  onChange: (domain: Domain) => void,
  onError: (message: string | undefined) => void,
): void {
  const { api, accountId } = useApp();
  const name = domain.domain;
  const running = IN_PROGRESS.has(domain.state);
  const { data: fresh, dataUpdatedAt: readAt, failureReason: failure } = useQuery({
    queryKey: queryKeys.domain(accountId, projectId, name),
    queryFn: () => api.domain(accountId, projectId, name),
    enabled: running,
    refetchInterval: POLL_MS,
    retry: true,
    retryDelay: (attempt) => Math.min(POLL_MS * 2 ** attempt, POLL_MS * 16),
  });
  useEffect(() => {
    if (!running) return;
    onError(failure ? `Could not refresh the status: ${errorMessage(failure)} Retrying…` : undefined);
  }, [running, failure, onError]);
  // Only reads made during this run: an earlier cached one must not undo what started it (a Re-verify's answer).
  const runStartedAt = useRef(0);
  useEffect(() => {
    if (running) runStartedAt.current = Date.now();
  }, [running]);
  useEffect(() => {
    if (running && fresh && readAt > runStartedAt.current) onChange(fresh);
  }, [running, fresh, readAt, onChange]);
}
