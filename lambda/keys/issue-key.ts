import { randomUUID } from 'node:crypto';
import type { LimiterStore } from '../rate-limits/limiter-store.js';
import { keySubjectId } from '../rate-limits/rate-limiter.js';
import type { Clock } from '../shared/clock.js';
import type { AccountRecord } from './accounts.js';
import { displayParts, generateApiKey, hashApiKey } from './api-key-format.js';
import type { ApiKeyRecord, KeyStore } from './key-store.js';

export interface IssueKeyDeps {
  readonly keys: KeyStore;
  readonly limiter: LimiterStore;
  readonly clock: Clock;
}

/**
 * Issues a key for an account. The secret is returned here, once; only its SHA-256 is stored,
 * with a display prefix and last 4. The limiter item is created active, so the key works at once.
 */
export async function issueKey(
  account: AccountRecord,
  name: string,
  deps: IssueKeyDeps,
): Promise<{ secret: string; record: ApiKeyRecord }> {
  const secret = generateApiKey();
  const record: ApiKeyRecord = {
    keyHash: hashApiKey(secret),
    keyId: `key_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
    accountId: account.accountId,
    name,
    ...displayParts(secret),
    status: 'active',
    plan: account.plan,
    ...(account.limits ? { limits: account.limits } : {}),
    createdAt: new Date(deps.clock.now()).toISOString(),
  };
  await deps.limiter.setStatus(keySubjectId(record.keyId), 'active');
  await deps.keys.put(record);
  return { secret, record };
}
