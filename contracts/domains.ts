/** The label of the platform host under the platform domain: customers' CNAMEs point at `edge.<domain>` or below it. */
export const PLATFORM_HOST_LABEL = 'edge';

/**
 * The shared platform host (`edge.<platform domain>`), routed to the connection group. Each custom
 * domain's own target is a name under it (`<token>.edge.<platform domain>`), routed by the
 * `*.edge.` wildcard record.
 */
export function platformHostOf(platformDomain: string): string {
  return `${PLATFORM_HOST_LABEL}.${platformDomain}`;
}

/**
 * Contract between the projects/domains constructs and their Lambda handlers: entry files,
 * exported handler names and environment variables. The local platform sets the same.
 */
export const DOMAIN_HANDLERS = {
  /** One module, one exported handler per flow task (each its own function). */
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
  /**
   * The release branch's task, in a module of its own: it needs no DNS, no platform host and none
   * of the verification tasks' clients, only the tenants, the KeyValueStore and two tables.
   */
  tenantRelease: {
    entry: 'lambda/domains/release-handler.ts',
    handler: 'releaseTenant',
  },
  /**
   * The drift branch's task, in a module of its own: DNS, the tables, the KeyValueStore and starting
   * releases, but no CloudFront tenant or ACM client.
   */
  driftCheck: {
    entry: 'lambda/domains/drift-handler.ts',
    handler: 'checkDrift',
  },
} as const;

export const DOMAIN_ENV = {
  accountsTable: 'ACCOUNTS_TABLE',
  projectsTable: 'PROJECTS_TABLE',
  domainsTable: 'DOMAINS_TABLE',
  /** The name customers point their CNAME/ALIAS at (the connection group's routing endpoint alias). */
  platformHost: 'PLATFORM_HOST',
  platformDomain: 'PLATFORM_DOMAIN',
  keyValueStoreArn: 'KVS_ARN',
  distributionId: 'DISTRIBUTION_ID',
  connectionGroupId: 'CONNECTION_GROUP_ID',
  /** Optional: comma-separated resolvers (host:port) for the flow's DNS checks; system resolver when unset. */
  dnsServers: 'DNS_SERVERS',
  watchdogSeconds: 'WATCHDOG_SECONDS',
  /** Seconds a live domain whose DNS no longer points at its target is still served (config domains.driftCheck.gracePeriodDays). */
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

/**
 * Browser uploads of deploy files go straight to the site bucket with presigned PUTs
 * (lambda/projects/s3-site-storage.ts): the CORS rule the bucket has for the dashboard's origin,
 * on AWS (ProjectsData) and locally (s3rver) alike.
 */
export const SITE_UPLOAD_CORS = {
  allowedMethods: ['PUT'],
  allowedHeaders: ['content-type', 'x-amz-checksum-sha256'],
  exposedHeaders: ['ETag'],
  maxAgeSeconds: 3600,
} as const;
