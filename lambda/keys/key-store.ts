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
  /** The internal API Gateway key that binds this key to its usage plan; absent when pooled. */
  readonly gatewayKeyId?: string;
  /**
   * The value of that internal key, which the authorizer returns as the usage identifier, so that
   * it needs no API Gateway call. Not a customer secret: the REST API takes API keys from the
   * authorizer only (`apiKeySourceType: AUTHORIZER`), so API Gateway never accepts it from a
   * client. Absent on records created before it was stored (`keys backfill-usage-keys` fills it).
   */
  readonly gatewayKeyValue?: string;
  readonly createdAt: string;
  readonly revokedAt?: string;
}

export type ApiKeyChanges = Partial<
  Pick<ApiKeyRecord, 'status' | 'revokedAt' | 'plan' | 'limits' | 'gatewayKeyId' | 'gatewayKeyValue'>
>;

export interface KeyStore {
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** Stores a new key; refuses to overwrite one with the same hash. */
  put(record: ApiKeyRecord): Promise<void>;
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Every key record of every account (a full read: operator maintenance only, never the request path). */
  listAll(): Promise<ApiKeyRecord[]>;
  /**
   * Updates attributes of an existing key; `limits: undefined` removes custom limits. With
   * `expected`, only while those attributes still have those values (else the condition fails).
   */
  update(keyHash: string, changes: ApiKeyChanges, expected?: Partial<ApiKeyRecord>): Promise<void>;
}
