/**
 * The public module of the projects capability: what the other capabilities (domains, the control
 * API) use of it. Other folders of lambda/ import it through this file only.
 */
export { DynamoDbProjectStore } from './dynamodb-project-store.js';
export type { ProjectStore } from './ports.js';
export { deployPrefix, type ProjectRecord } from './project.js';
export { type DeployFile, ProjectError, ProjectService } from './project-service.js';
export { S3SiteStorage } from './s3-site-storage.js';
