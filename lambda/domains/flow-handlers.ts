import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import { DOMAIN_ENV } from '../../contracts/domains.js';
import { DynamoDbProjectStore } from '../projects/index.js';
import { systemClock } from '../shared/clock.js';
import { documentClient as documents } from '../shared/runtime.js';
import { requireEnv, requirePositiveIntEnv } from '../shared/env.js';
import { powertools } from '../shared/middleware.js';
import { logger, metrics } from '../shared/powertools.js';
import { cloudFrontCertificates, domainDnsResolver, kvsEdgeRouter } from './aws-adapters.js';
import { DynamoDbDomainStore } from './dynamodb-domain-store.js';
import { createFlowTasks, type FlowInput } from './flow-tasks.js';

// The domain flow's Lambda tasks (one function per export, see DOMAIN_HANDLERS), built once per cold start.
const tasks = createFlowTasks({
  domains: new DynamoDbDomainStore(documents, requireEnv(DOMAIN_ENV.domainsTable)),
  projects: new DynamoDbProjectStore(documents, requireEnv(DOMAIN_ENV.projectsTable)),
  dns: domainDnsResolver(),
  certificates: cloudFrontCertificates(requireEnv(DOMAIN_ENV.distributionId), requireEnv(DOMAIN_ENV.connectionGroupId)),
  edge: kvsEdgeRouter(requireEnv(DOMAIN_ENV.keyValueStoreArn)),
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
