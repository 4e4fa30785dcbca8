import { QueryClient } from '@tanstack/react-query';

/** Refresh cadence of every page's server state while the tab is visible (TanStack Query pauses when hidden). */
export const REFRESH_INTERVAL_MS = 10_000;

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      refetchInterval: REFRESH_INTERVAL_MS,
      refetchOnWindowFocus: true,
      retry: 2,
    },
  },
});
