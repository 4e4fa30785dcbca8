import { QueryClient } from '@tanstack/react-query';

/** Refresh cadence of every page's server state while the tab is visible (TanStack Query pauses when hidden). */
export const REFRESH_INTERVAL_MS = 10_000;

/**
 * The dashboard's one cache of server state: every page reads the account, keys, usage, projects,
 * domains, messages and webhooks through it, so one refetch updates every place that shows a value.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      refetchInterval: REFRESH_INTERVAL_MS,
      // Hidden tabs do not poll; a tab that becomes visible again reads at once.
      refetchIntervalInBackground: false,
      refetchOnWindowFocus: true,
      retry: 2,
    },
  },
});
