/**
 * The public module of the keys capability (accounts, API keys, plans): what the other
 * capabilities (messages, projects, domains, usage-history) use of it. Other capabilities
 * import it through this file only.
 *
 * Keep it cheap to import: a Lambda bundle takes in every module re-exported here (esbuild keeps
 * their top-level code), so nothing here may pull lib/config's schemas (zod) or a management-API
 * client into the request path. The control API's handler (lambda/control), which wires every
 * capability's adapters and services, imports those modules directly.
 */
export type { AccountStore } from './accounts.js';
export type { LimitsConfig } from './authorize.js';
export { type KeyStore, oldestKeyFirst } from './key-store.js';
export { type Caller, callerFromContext, type KeyCaller } from './caller.js';
