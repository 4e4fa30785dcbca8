import { isConditionFailure } from '../shared/dynamodb.js';
import type { ApiKeyRecord, KeyStore } from './key-store.js';
import type { UsagePlanGateway } from './usage-plan-gateway.js';

/** What a backfill run found and did, per key record. */
export interface UsageKeyBackfill {
  /** The account whose keys were checked; absent when every account's were. */
  readonly accountId?: string;
  /** Key records read. */
  readonly checked: number;
  /** Keys whose internal key value was stored by this run. */
  readonly filled: readonly string[];
  /** Active keys whose record already held the value (nothing to do). */
  readonly alreadyStored: number;
  /** Active keys without an internal key of their own: they use their plan's pooled key by design. */
  readonly pooled: number;
  /** Revoked keys: left alone (their internal key is deleted by the revocation). */
  readonly revoked: number;
  /**
   * Keys whose internal key no longer exists in API Gateway: left on their plan's pooled key (the
   * authorizer already meters them there); the limiter still limits each key exactly.
   */
  readonly internalKeyMissing: readonly string[];
  /** Keys whose record changed during the run (revoked, or bound to another internal key): run again. */
  readonly changed: readonly string[];
}

/**
 * Fills `gatewayKeyValue` of key records created before the control plane stored it, by reading
 * each internal key's value from the gateway (GetApiKey, with the control plane's throttling
 * backoff): a migration that runs off the request path, so that the authorizer never calls a
 * management API. Each record is written only while it is still bound to the internal key whose
 * value was read, so a concurrent revocation or plan change wins.
 */
export async function backfillUsageKeys(
  deps: { readonly keys: KeyStore; readonly gateway: UsagePlanGateway },
  records: readonly ApiKeyRecord[],
  accountId?: string,
): Promise<UsageKeyBackfill> {
  const filled: string[] = [];
  const internalKeyMissing: string[] = [];
  const changed: string[] = [];
  let alreadyStored = 0;
  let pooled = 0;
  let revoked = 0;
  const ordered = [...records].sort((a, b) => a.keyId.localeCompare(b.keyId));
  for (const record of ordered) {
    if (record.status !== 'active') revoked++;
    else if (!record.gatewayKeyId) pooled++;
    else if (record.gatewayKeyValue) alreadyStored++;
    else {
      const value = await deps.gateway.keyValue(record.gatewayKeyId);
      if (value === undefined) {
        internalKeyMissing.push(record.keyId);
        continue;
      }
      try {
        await deps.keys.update(
          record.keyHash,
          { gatewayKeyValue: value },
          { status: 'active', gatewayKeyId: record.gatewayKeyId },
        );
        filled.push(record.keyId);
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        changed.push(record.keyId);
      }
    }
  }
  return {
    ...(accountId !== undefined ? { accountId } : {}),
    checked: records.length,
    filled,
    alreadyStored,
    pooled,
    revoked,
    internalKeyMissing,
    changed,
  };
}
