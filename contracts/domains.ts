/** The parent of every custom domain's own target `<token>.edge.<platform domain>` (the `*.edge.` record routes them). */
export function platformHostOf(platformDomain: string): string {
  return `edge.${platformDomain}`;
}

/** Entry files, handler names and environment of the domain Lambdas (the local platform sets the same). */
export const DOMAIN_HANDLERS = {
  flowTasks: {
    entry: 'lambda/domains/flow-handlers.ts',
    handlers: {
      verifyDns: 'verifyDns',
      requestCertificate: 'requestCertificate',
      checkCertificate: 'checkCertificate',
      activate: 'activate',
      diagnose: 'diagnose',
    },
  },
  // The release and drift tasks have modules of their own, without the verification tasks' clients.
  tenantRelease: {
    entry: 'lambda/domains/release-handler.ts',
    handler: 'releaseTenant',
  },
  driftCheck: {
    entry: 'lambda/domains/drift-handler.ts',
    handler: 'checkDrift',
  },
} as const;

export const DOMAIN_ENV = {
  accountsTable: 'ACCOUNTS_TABLE',
  projectsTable: 'PROJECTS_TABLE',
  domainsTable: 'DOMAINS_TABLE',
  /** platformHostOf(platform domain): the parent of the per-domain targets. */
  platformHost: 'PLATFORM_HOST',
  platformDomain: 'PLATFORM_DOMAIN',
  keyValueStoreArn: 'KVS_ARN',
  distributionId: 'DISTRIBUTION_ID',
  connectionGroupId: 'CONNECTION_GROUP_ID',
  /** Optional: comma-separated resolvers (host:port); the system resolver when unset. */
  dnsServers: 'DNS_SERVERS',
  watchdogSeconds: 'WATCHDOG_SECONDS',
  /** Seconds a drifted live domain is still served (config domains.driftCheck.gracePeriodDays). */
  driftGraceSeconds: 'DRIFT_GRACE_SECONDS',
  siteBucket: 'SITE_BUCKET',
} as const;

export const DOMAIN_TABLE_KEYS = {
  projects: { partitionKey: 'projectId', accountIndex: { name: 'byAccount', partitionKey: 'accountId', sortKey: 'createdAt' } },
  domains: { partitionKey: 'domain', projectIndex: { name: 'byProject', partitionKey: 'projectId', sortKey: 'domain' } },
} as const;

/** Redirect statuses the platform serves; 301 is the default (interface document, rule 10). */
export const REDIRECT_STATUSES = [301, 302, 307, 308] as const;
export type RedirectStatus = (typeof REDIRECT_STATUSES)[number];

/** A one-hop redirect of a project's domain (stored in the project's domain configuration, served by the edge). */
export interface Redirect {
  readonly from: string;
  readonly to: string;
  readonly status: RedirectStatus;
}

/** The site bucket's CORS rule for the dashboard's presigned PUTs, on AWS and locally (s3rver). */
export const SITE_UPLOAD_CORS = {
  allowedMethods: ['PUT'],
  allowedHeaders: ['content-type', 'x-amz-checksum-sha256'],
  exposedHeaders: ['ETag'],
  maxAgeSeconds: 3600,
} as const;
