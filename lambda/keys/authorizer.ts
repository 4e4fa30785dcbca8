import { ENV } from '../../lib/constructs/messages/runtime-contract.js';
import { ApiGatewayClient } from '../shared/aws/api-gateway.js';
import { systemClock } from '../shared/clock.js';
import { requireEnv, requireJsonEnv } from '../shared/env.js';
import { documentClient, limitsConfig } from '../shared/runtime.js';
import { ApiGatewayUsageIdentifiers } from './api-gateway-usage-identifiers.js';
import { createAuthorizerHandler } from './authorizer-handler.js';
import { DynamoDbKeyStore } from './dynamodb-key-store.js';

export const handler = createAuthorizerHandler({
  keys: new DynamoDbKeyStore(documentClient, requireEnv(ENV.apiKeysTable)),
  usageIdentifiers: new ApiGatewayUsageIdentifiers(new ApiGatewayClient(), requireJsonEnv(ENV.gatewayKeyIds)),
  limits: limitsConfig(),
  clock: systemClock,
  keyCacheSeconds: Number(requireEnv(ENV.keyCacheSeconds)),
});
