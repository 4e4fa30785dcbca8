import { useQuery } from '@tanstack/react-query';
import { useApp } from './context';
import type { Account } from './types';

/**
 * The cache keys of the control API's resources, one per resource: every page that shows a value
 * reads it under the same key, so one refetch (every 10 s while visible, query-client.ts) or one
 * invalidation after a change updates every place at once.
 */
export const queryKeys = {
  account: (accountId: string) => ['account', accountId] as const,
  plans: ['plans'] as const,
  keys: (accountId: string) => ['keys', accountId] as const,
  usage: (accountId: string) => ['usage', accountId] as const,
  usageHistory: (accountId: string, days: number) => ['usage-history', accountId, days] as const,
  projects: (accountId: string) => ['projects', accountId] as const,
  project: (accountId: string, projectId: string) => ['project', accountId, projectId] as const,
  deploys: (accountId: string, projectId: string) => ['deploys', accountId, projectId] as const,
  domains: (accountId: string, projectId: string) => ['domains', accountId, projectId] as const,
  domain: (accountId: string, projectId: string, domain: string) => ['domain', accountId, projectId, domain] as const,
};

/**
 * The account as the control API has it now (plan, limits, pending upgrade request): the one
 * source the header, the plan cards, the usage page and the Domains page's gating read, so a plan
 * an operator changes shows everywhere within one refresh. Starts from the account the sign-in read.
 */
export function useAccount(): Account {
  const { api, me, bootAccount } = useApp();
  const accountId = me.account.accountId;
  const query = useQuery({
    queryKey: queryKeys.account(accountId),
    queryFn: () => api.account(accountId),
    initialData: bootAccount.account,
    initialDataUpdatedAt: bootAccount.readAt,
  });
  return query.data;
}

/** The plan of the account, from the catalogue (GET /plans, read at sign-in). */
export function useCurrentPlan() {
  const { plans } = useApp();
  const account = useAccount();
  return { account, plan: plans.find((p) => p.id === account.plan) };
}

export function useProjectQuery(projectId: string) {
  const { api, me } = useApp();
  const accountId = me.account.accountId;
  return useQuery({
    queryKey: queryKeys.project(accountId, projectId),
    queryFn: () => api.project(accountId, projectId),
  });
}
