/** The keys capability's public module. Cheap to import: no zod or management-API client on the request path. */
export type { AccountStore } from './accounts.js';
export type { LimitsConfig } from './authorize.js';
export { type KeyStore, oldestKeyFirst } from './key-store.js';
export { type Caller, callerFromContext, type KeyCaller } from './caller.js';
