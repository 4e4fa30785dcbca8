// The public module of the domains capability for the other capabilities. Keep it cheap to import:
// a Lambda bundle takes in every module re-exported here (no zod schemas, no management-API client).
export type { DomainStore, EdgeRouter } from './ports.js';
export { createProjectDomains } from './project-domains.js';
