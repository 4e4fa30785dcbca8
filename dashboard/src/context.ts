import { createContext, useContext } from 'react';
import type { Api } from './api';
import type { RuntimeConfig } from './config';
import type { Account, Me, Plan } from './types';

/** The signed-in owner. Only the account's id: its plan and limits change, and useAccount() reads them. */
export type Owner = Readonly<Pick<Me, 'ownerId' | 'email'>> & { readonly account: { readonly accountId: string } };

export interface AppContextValue {
  readonly config: RuntimeConfig;
  readonly api: Api;
  readonly me: Owner;
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
