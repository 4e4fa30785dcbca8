import { createContext, useContext } from 'react';
import type { Api } from './api';
import type { RuntimeConfig } from './config';
import type { Account, Plan } from './types';

export interface AppContextValue {
  readonly config: RuntimeConfig;
  readonly api: Api;
  readonly email: string | undefined;
  readonly accountId: string;
  /** The account as sign-in read it: the first value of useAccount(), which refreshes it. */
  readonly bootAccount: { readonly account: Account; readonly readAt: number };
  /** The plan catalogue (GET /plans): it changes only with a deploy of the platform. */
  readonly plans: readonly Plan[];
}

export const AppContext = createContext<AppContextValue | undefined>(undefined);

export function useApp(): AppContextValue {
  const value = useContext(AppContext);
  if (!value) throw new Error('useApp outside the signed-in shell');
  return value;
}

export const planName = (plans: readonly Plan[], id: string) => plans.find((p) => p.id === id)?.displayName ?? id;
