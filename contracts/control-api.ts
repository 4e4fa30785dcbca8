/** The control API handler's entry and environment: set by the dashboard constructs and by the local platform alike. */
export const CONTROL_API_HANDLER = {
  entry: 'lambda/control/http-handler.ts',
  handler: 'handler',
} as const;

export const CONTROL_ENV = {
  /** JSON: the validated platform config (lib/config), as the stacks were synthesised with. */
  platformConfig: 'PLATFORM_CONFIG',
  apiKeysTable: 'API_KEYS_TABLE',
  accountsTable: 'ACCOUNTS_TABLE',
  rateLimitsTable: 'RATE_LIMITS_TABLE',
  /** Cognito user (sub) → account links; see OWNERS_TABLE_KEYS. */
  ownersTable: 'OWNERS_TABLE',
  /** The Messages API's REST API, stage and standard usage plans (keys are bound to them). */
  restApiId: 'REST_API_ID',
  stageName: 'STAGE_NAME',
  /** JSON: { "free": id, "pro": id, "business": id }. */
  usagePlanIds: 'USAGE_PLAN_IDS',
  projectsTable: 'PROJECTS_TABLE',
  domainsTable: 'DOMAINS_TABLE',
  siteBucket: 'SITE_BUCKET',
  keyValueStoreArn: 'KVS_ARN',
  platformHost: 'PLATFORM_HOST',
  domainFlowArn: 'DOMAIN_FLOW_ARN',
  /** https://<distribution domain>: the handler's answers carry its CORS header (API Gateway's only its own). */
  dashboardOrigin: 'DASHBOARD_ORIGIN',
  /** The operations (alarm) topic: upgrade requests are published to it. Absent: none is. */
  operationsTopicArn: 'OPERATIONS_TOPIC_ARN',
} as const;

/** The owners table: partition key `ownerId` (the Cognito `sub`), attribute `accountId`. */
export const OWNERS_TABLE_KEYS = { partitionKey: 'ownerId' } as const;
