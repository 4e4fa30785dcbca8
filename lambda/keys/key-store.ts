import type { PlanId, RateLimits } from '../../lib/config/index.js';

export interface ApiKeyRecord {
  /** SHA-256 of the secret (hex): the table's key. The secret itself is never stored. */
  readonly keyHash: string;
  readonly keyId: string;
  readonly accountId: string;
  readonly name: string;
  readonly prefix: string;
  readonly last4: string;
  readonly status: 'active' | 'revoked';
  /** Copied from the account so the authorizer needs one lookup; moved on plan change. */
  readonly plan: PlanId;
  /** Per-account limits (Enterprise); otherwise the plan's. */
  readonly limits?: RateLimits;
  readonly createdAt: string;
  readonly revokedAt?: string;
}

export interface KeyStore {
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  put(record: ApiKeyRecord): Promise<void>;
}
