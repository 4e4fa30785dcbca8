/**
 * The public module of the domains capability: what the other capabilities (projects, the control
 * API) use of it. Other folders of lambda/ import the domains capability through this file only.
 */
export { kvsEdgeRouter } from './aws-adapters.js';
export type { Redirect } from './domain-config.js';
export { DomainError, DomainService } from './domain-service.js';
export { DynamoDbDomainStore } from './dynamodb-domain-store.js';
export type { DomainStore, EdgeRouter } from './ports.js';
export { SfnDomainFlowStarter } from './sfn-flow-starter.js';
