/**
 * The public module of the keys capability (accounts, API keys, plans): what the other capabilities
 * (messages, projects, domains, the control API) use of it. Other folders of lambda/ import it
 * through this file only.
 */
export { type AccountStore, DynamoDbAccountStore } from './accounts.js';
export { ApiGatewayUsagePlanGateway } from './api-gateway-usage-plan-gateway.js';
export type { LimitsConfig } from './authorize.js';
export { type Caller, callerFromContext, type KeyCaller } from './caller.js';
export { ControlPlane, ControlPlaneError, newAccountId } from './control-plane.js';
export { DynamoDbKeyStore } from './dynamodb-key-store.js';
