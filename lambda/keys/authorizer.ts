import { ENV } from '../../contracts/messages.js';
import { systemClock } from '../shared/clock.js';
import { requireEnv, requireJsonEnv } from '../shared/env.js';
import { documentClient } from '../shared/runtime.js';
import { type LimitsConfig, parsePooledUsageKeys } from './authorize.js';
import { createAuthorizerHandler } from './authorizer-handler.js';
import { DynamoDbKeyStore } from './dynamodb-key-store.js';

// One DynamoDB read per key lookup and nothing else: no management-plane (API Gateway) client at
// all, since its quotas are low and fixed and a scale-out would turn its throttling into failures.
export const handler = createAuthorizerHandler({
  keys: new DynamoDbKeyStore(documentClient, requireEnv(ENV.apiKeysTable)),
  pooledUsageKeys: parsePooledUsageKeys(requireJsonEnv(ENV.pooledUsageKeys)),
  limits: requireJsonEnv<LimitsConfig>(ENV.limitsConfig),
  clock: systemClock,
  keyCacheSeconds: Number(requireEnv(ENV.keyCacheSeconds)),
});
