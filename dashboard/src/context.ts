import { createContext, useContext } from 'react';
import type { Api } from './api';
import type { RuntimeConfig } from './config';
import type { Me, Plan } from './types';

export interface AppContextValue {
  readonly config: RuntimeConfig;
  readonly api: Api;
  readonly me: Me;
  readonly plans: readonly Plan[];
  /** Reloads the owner and account (after a plan change elsewhere, for instance). */
  readonly refreshMe: () => Promise<void>;
}

export const AppContext = createContext<AppContextValue | undefined>(undefined);

export function useApp(): AppContextValue {
  const value = useContext(AppContext);
  if (!value) throw new Error('useApp outside the signed-in shell');
  return value;
}

export const planName = (plans: readonly Plan[], id: string) => plans.find((p) => p.id === id)?.displayName ?? id;
