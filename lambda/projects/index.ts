// The public module of the projects capability for the other capabilities. Keep it cheap to import:
// a Lambda bundle takes in every module re-exported here (no zod schemas, no management-API client).
export { DynamoDbProjectStore } from './dynamodb-project-store.js';
export type { ProjectDomainsPort, ProjectStore } from './ports.js';
export { deployPrefix, type ProjectRecord } from './project.js';
