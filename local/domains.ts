import { S3Client } from '@aws-sdk/client-s3';
import { NodeDnsResolver } from '../lambda/domains/dns-resolver.js';
import { DomainService } from '../lambda/domains/domain-service.js';
import { createDriftCheckTask } from '../lambda/domains/drift-check.js';
import { DynamoDbDomainStore } from '../lambda/domains/dynamodb-domain-store.js';
import { createFlowTasks } from '../lambda/domains/flow-tasks.js';
import { createReleaseTask } from '../lambda/domains/release-task.js';
import type { AccountStore } from '../lambda/keys/accounts.js';
import { createProjectDomains } from '../lambda/domains/project-domains.js';
import { DeployService } from '../lambda/projects/deploy-service.js';
import { DynamoDbProjectStore } from '../lambda/projects/dynamodb-project-store.js';
import { ProjectService } from '../lambda/projects/project-service.js';
import { S3SiteStorage } from '../lambda/projects/s3-site-storage.js';
import type { Clock } from '../lambda/shared/clock.js';
import type { createDocumentClient } from '../lambda/shared/dynamodb.js';
import type { PlatformConfig } from '../lib/config/index.js';
import { platformHostOf } from '../contracts/domains.js';
import { LocalDomainFlow } from './domain-flow.js';
import { LocalEdgeRouter, S3SiteOrigin, SimulatedCertificateAuthority } from './edge.js';
import { LOCAL_S3, LOCAL_SITE_BUCKET, LOCAL_TABLE_NAMES } from './emulators.js';

export interface LocalDomainsOptions {
  readonly documentClient: ReturnType<typeof createDocumentClient>;
  readonly accounts: AccountStore;
  readonly clock: Clock;
  readonly config: PlatformConfig;
  readonly dnsServers?: readonly string[];
  /** The s3rver holding the site bucket (startS3). */
  readonly s3Endpoint: string;
  readonly domainFlow?: {
    readonly pollMs?: number;
    readonly watchdogSeconds?: number;
    readonly releaseWaitMs?: number;
    readonly tenantDeleteRefusals?: number;
    /** How often the drift check runs by itself; 0 turns the timer off. @default config.domains.driftCheck.intervalMinutes */
    readonly driftCheckIntervalMs?: number;
  };
}

/** Projects, deploys and custom domains: AWS's services and flow tasks over the emulators, and the drift timer. */
export function createLocalDomains(options: LocalDomainsOptions) {
  const { documentClient, accounts, clock, config } = options;
  const platformDomain = config.platform.domain;
  const platformHost = platformHostOf(platformDomain);
  // The same adapter as the control function on AWS: presigned PUTs, copies, lists, deletes.
  const s3 = new S3Client({ ...LOCAL_S3, endpoint: options.s3Endpoint });
  const storage = new S3SiteStorage({ client: s3, bucket: LOCAL_SITE_BUCKET, clock });
  const origin = new S3SiteOrigin(s3, LOCAL_SITE_BUCKET);
  const edge = new LocalEdgeRouter();
  const dns = new NodeDnsResolver(options.dnsServers);
  const certificates = new SimulatedCertificateAuthority(dns, platformHost, platformDomain, undefined, {
    deleteRefusals: options.domainFlow?.tenantDeleteRefusals,
  });
  const projectStore = new DynamoDbProjectStore(documentClient, LOCAL_TABLE_NAMES.projects);
  const domainStore = new DynamoDbDomainStore(documentClient, LOCAL_TABLE_NAMES.domains);
  const graceSeconds = config.domains.driftCheck.gracePeriodDays * 24 * 60 * 60;
  const pollMs = options.domainFlow?.pollMs ?? 1_000;
  const checks = { domains: domainStore, projects: projectStore, dns, edge, clock, platformHost, platformDomain };
  const domainFlow = new LocalDomainFlow(
    createFlowTasks({ ...checks, certificates, driftGraceSeconds: graceSeconds }),
    createReleaseTask({ domains: domainStore, certificates, edge, clock }),
    {
      pollMs,
      watchdogSeconds: options.domainFlow?.watchdogSeconds ?? 30 * 60,
      releaseWaitMs: options.domainFlow?.releaseWaitMs ?? pollMs,
    },
  );
  // Locally the releases run on this very flow, whatever ARN the context object names.
  domainFlow.useDriftCheck(createDriftCheckTask({ ...checks, flowFor: () => domainFlow, graceSeconds }));
  const projectDomains = createProjectDomains({ domains: domainStore, edge, flow: domainFlow, clock });
  const projectDeps = { projects: projectStore, domains: projectDomains, storage, edge, clock, platformDomain };
  const projects = new ProjectService({ ...projectDeps, accounts });
  const deploys = new DeployService(projectDeps);
  const stores = { accounts, projects: projectStore, domains: domainStore };
  const domains = new DomainService({ ...stores, edge, flow: domainFlow, clock, config, platformHost });

  const intervalMs = options.domainFlow?.driftCheckIntervalMs ?? config.domains.driftCheck.intervalMinutes * 60_000;
  const timer = intervalMs > 0
    ? setInterval(() => {
        domainFlow.checkDrift().catch((error: unknown) => console.error('drift check did not start:', (error as Error).message));
      }, intervalMs)
    : undefined;
  // The timer alone must not keep the process alive (tests, a stopped platform).
  timer?.unref();

  return {
    platformHost,
    storage,
    origin,
    edge,
    certificates,
    projectStore,
    domainStore,
    domainFlow,
    projects,
    deploys,
    domains,
    stop: async () => {
      if (timer) clearInterval(timer);
      await domainFlow.stop();
      s3.destroy();
    },
  };
}
