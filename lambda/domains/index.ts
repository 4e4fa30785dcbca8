/**
 * The public module of the domains capability: what the other capabilities (projects) use of it.
 * Other capabilities import the domains capability through this file only.
 *
 * Keep it cheap to import: a Lambda bundle takes in every module re-exported here (esbuild keeps
 * their top-level code), so nothing here may pull lib/config's schemas (zod) or a management-API
 * client into the request path. The control API's handler (lambda/control), which wires every
 * capability's adapters and services, imports those modules directly.
 */
export type { Redirect } from './domain-config.js';
export type { DomainStore, EdgeRouter } from './ports.js';
export { createProjectDomains } from './project-domains.js';
