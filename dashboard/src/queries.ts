import { useQuery } from '@tanstack/react-query';
import { useApp } from './context';
import type { Account } from './types';

/** One cache key per resource of the control API: one refetch or invalidation updates every place that shows it. */
export const queryKeys = {
  account: (accountId: string) => ['account', accountId] as const,
  keys: (accountId: string) => ['keys', accountId] as const,
  usage: (accountId: string) => ['usage', accountId] as const,
  usageHistory: (accountId: string, days: number) => ['usage-history', accountId, days] as const,
  projects: (accountId: string) => ['projects', accountId] as const,
  project: (accountId: string, projectId: string) => ['project', accountId, projectId] as const,
  deploys: (accountId: string, projectId: string) => ['deploys', accountId, projectId] as const,
  domains: (accountId: string, projectId: string) => ['domains', accountId, projectId] as const,
  domain: (accountId: string, projectId: string, domain: string) => ['domain', accountId, projectId, domain] as const,
};

/** The account now (plan, limits, pending upgrade request), so a plan an operator changes shows everywhere at once. */
export function useAccount(): Account {
  const { api, accountId, bootAccount } = useApp();
  const query = useQuery({
    queryKey: queryKeys.account(accountId),
    queryFn: () => api.account(accountId),
    initialData: bootAccount.account,
    initialDataUpdatedAt: bootAccount.readAt,
  });
  return query.data;
}

export function useCurrentPlan() {
  const { plans } = useApp();
  const account = useAccount();
  return { account, plan: plans.find((p) => p.id === account.plan) };
}

export function useProjectQuery(projectId: string) {
  const { api, accountId } = useApp();
  return useQuery({
    queryKey: queryKeys.project(accountId, projectId),
    queryFn: () => api.project(accountId, projectId),
  });
}
