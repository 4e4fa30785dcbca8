/**
 * The public module of the projects capability: what the other capabilities (domains) use of it.
 * Other capabilities import it through this file only; the projects capability imports nothing
 * from the domains capability (it owns the port, ProjectDomainsPort, that domains implements).
 *
 * Keep it cheap to import: a Lambda bundle takes in every module re-exported here (esbuild keeps
 * their top-level code), so nothing here may pull lib/config's schemas (zod) or a management-API
 * client into the request path. The control API's handler (lambda/control), which wires every
 * capability's adapters and services, imports those modules directly.
 */
export { DynamoDbProjectStore } from './dynamodb-project-store.js';
export type { ProjectDomainsPort, ProjectStore } from './ports.js';
export { deployPrefix, type ProjectRecord } from './project.js';
