import { ACMClient } from '@aws-sdk/client-acm';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import { DOMAIN_ENV } from '../../lib/constructs/domains/runtime-contract.js';
import { DynamoDbProjectStore } from '../projects/dynamodb-project-store.js';
import { CONTROL_PLANE, traced } from '../shared/aws-clients.js';
import { systemClock } from '../shared/clock.js';
import { createDocumentClient } from '../shared/dynamodb.js';
import { requireEnv, requirePositiveIntEnv } from '../shared/env.js';
import { powertools } from '../shared/middleware.js';
import { logger, metrics } from '../shared/powertools.js';
import { CloudFrontCertificateAuthority } from './cloudfront-certificate-authority.js';
import { NodeDnsResolver } from './dns-resolver.js';
import { DynamoDbDomainStore } from './dynamodb-domain-store.js';
import { createFlowTasks, type FlowInput } from './flow-tasks.js';
import { KvsEdgeRouter } from './kvs-edge-router.js';

// The domain flow's Lambda tasks (one function per export, see DOMAIN_HANDLERS). Module-scoped
// clients, built once per cold start from the environment the DomainFlow construct sets.
const documents = createDocumentClient();
const dnsServers = process.env[DOMAIN_ENV.dnsServers];

const tasks = createFlowTasks({
  domains: new DynamoDbDomainStore(documents, requireEnv(DOMAIN_ENV.domainsTable)),
  projects: new DynamoDbProjectStore(documents, requireEnv(DOMAIN_ENV.projectsTable)),
  dns: new NodeDnsResolver(dnsServers ? dnsServers.split(',') : undefined),
  certificates: new CloudFrontCertificateAuthority({
    cloudfront: traced(new CloudFrontClient(CONTROL_PLANE)),
    acm: traced(new ACMClient({ ...CONTROL_PLANE, region: 'us-east-1' })),
    distributionId: requireEnv(DOMAIN_ENV.distributionId),
    connectionGroupId: requireEnv(DOMAIN_ENV.connectionGroupId),
    // One tenant per domain: a tenant has one pending certificate request at a time, so per-project
    // tenants would make a second domain wait for the first one's certificate.
    tenancy: 'domain',
  }),
  edge: new KvsEdgeRouter({
    client: traced(new CloudFrontKeyValueStoreClient({ ...CONTROL_PLANE, region: 'us-east-1' })),
    kvsArn: requireEnv(DOMAIN_ENV.keyValueStoreArn),
  }),
  clock: systemClock,
  platformHost: requireEnv(DOMAIN_ENV.platformHost),
  platformDomain: requireEnv(DOMAIN_ENV.platformDomain),
  driftGraceSeconds: requirePositiveIntEnv(DOMAIN_ENV.driftGraceSeconds),
  onCertificateDelayed: (domain) => {
    logger.warn('domain certificate delayed', { domain });
    metrics.addMetric('DomainsCertificateDelayed', MetricUnit.Count, 1);
    metrics.publishStoredMetrics();
  },
});

const task = <T>(run: (input: FlowInput) => Promise<T>) =>
  middy<FlowInput, T>()
    .use(powertools())
    .handler((input) => {
      logger.appendKeys({ domain: input.domain, attempt: input.attempt });
      return run(input);
    });

export const verifyDns = task(tasks.verifyDns);
export const requestCertificate = task(tasks.requestCertificate);
export const checkCertificate = task(tasks.checkCertificate);
export const activate = task(tasks.activate);
export const diagnose = task(tasks.diagnose);
