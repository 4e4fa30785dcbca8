import type { RateLimits } from '../lib/config/index.js';
import type { AccountView, KeyUsageView, KeyView, UsageView, WindowUsageView } from '../lambda/keys/control-plane.js';

export type { AccountView, KeyUsageView, KeyView, UsageView, WindowUsageView };

/**
 * What the operator CLI needs of the control plane: the methods of `ControlPlane`
 * (lambda/keys/control-plane.ts), over HTTP (the local control API) or in process (a deployed
 * stack). Refusals are thrown as `CliError` with the control plane's detail, code and status.
 */
export interface ControlPlaneClient {
  createAccount(input: { name: string; plan: string; limits?: RateLimits }): Promise<AccountView>;
  getAccount(accountId: string): Promise<AccountView>;
  /** The secret is in this result and nowhere else, ever. */
  createKey(accountId: string, name: string): Promise<{ secret: string; key: KeyView }>;
  listKeys(accountId: string): Promise<KeyView[]>;
  revokeKey(accountId: string, keyId: string): Promise<KeyView>;
  setPlan(accountId: string, input: { plan: string; limits?: RateLimits }): Promise<AccountView>;
  liftBan(accountId: string, keyId: string): Promise<{ keyId: string; wasBanned: boolean }>;
  usage(accountId: string): Promise<UsageView>;
}
