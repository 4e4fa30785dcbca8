/**
 * The public module of the keys capability (accounts, API keys, plans). Keep it cheap to import: bundles take in every module
 * re-exported here, so nothing may pull zod or a management-API client into the request path.
 */
export type { AccountStore } from './accounts.js';
export type { LimitsConfig } from './authorize.js';
export { type KeyStore, oldestKeyFirst } from './key-store.js';
export { type Caller, callerFromContext, type KeyCaller } from './caller.js';
