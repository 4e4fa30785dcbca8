import type { PlanId, RateLimits } from '../../contracts/plans.js';

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
  /**
   * Copied from the account: its internal API Gateway key, whose value the authorizer returns as
   * the usage identifier (no API Gateway call on the request path). Absent when the account is
   * pooled. Not a customer secret: API Gateway takes API keys from the authorizer only.
   */
  readonly gatewayKeyId?: string;
  readonly gatewayKeyValue?: string;
  /** Last use, kept at revocation (the limiter's copy is tidied away some time after). */
  readonly lastUsedAt?: string;
  readonly createdAt: string;
  readonly revokedAt?: string;
}

/** Keys in the order they are listed everywhere: oldest first, then by id (keys made in the same millisecond). */
export function oldestKeyFirst(
  a: { readonly createdAt: string; readonly keyId: string },
  b: { readonly createdAt: string; readonly keyId: string },
): number {
  return a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId);
}

export type ApiKeyChanges = Partial<
  Pick<ApiKeyRecord, 'status' | 'revokedAt' | 'plan' | 'limits' | 'gatewayKeyId' | 'gatewayKeyValue' | 'lastUsedAt'>
>;

export interface KeyStore {
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** Stores a new key; refuses to overwrite one with the same hash. */
  put(record: ApiKeyRecord): Promise<void>;
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Updates attributes of an existing key; `limits: undefined` removes custom limits. */
  update(keyHash: string, changes: ApiKeyChanges): Promise<void>;
}
