import { SFNClient } from '@aws-sdk/client-sfn';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import middy from '@middy/core';
import { DOMAIN_ENV } from '../../contracts/domains.js';
import { DynamoDbProjectStore } from '../projects/index.js';
import { MANAGEMENT_PLANE, traced } from '../shared/aws-clients.js';
import { systemClock } from '../shared/clock.js';
import { documentClient as documents } from '../shared/runtime.js';
import { requireEnv, requirePositiveIntEnv } from '../shared/env.js';
import { powertools } from '../shared/middleware.js';
import { logger, metrics } from '../shared/powertools.js';
import { domainDnsResolver, kvsEdgeRouter } from './aws-adapters.js';
import { type DriftCheckInput, type DriftCheckResult, type DriftFinding, createDriftCheckTask } from './drift-check.js';
import { DynamoDbDomainStore } from './dynamodb-domain-store.js';
import { SfnDomainFlowStarter } from './sfn-flow-starter.js';

// The domain flow's drift task (DOMAIN_HANDLERS.driftCheck), built once per cold start.
// StartExecution is a management API: the adaptive retries (MANAGEMENT_PLANE) absorb its throttles.
const sfn = traced(new SFNClient(MANAGEMENT_PLANE));

/** The metric per finding (EMF): DomainsMisconfigured, DomainsRestored, DomainsDetached. */
const DRIFT_METRICS: Readonly<Record<DriftFinding, string>> = {
  misconfigured: 'DomainsMisconfigured',
  restored: 'DomainsRestored',
  detached: 'DomainsDetached',
};

const task = createDriftCheckTask({
  domains: new DynamoDbDomainStore(documents, requireEnv(DOMAIN_ENV.domainsTable)),
  projects: new DynamoDbProjectStore(documents, requireEnv(DOMAIN_ENV.projectsTable)),
  dns: domainDnsResolver(),
  edge: kvsEdgeRouter(requireEnv(DOMAIN_ENV.keyValueStoreArn)),
  // The state machine that runs this task starts the releases (the ARN comes from its context object).
  flowFor: (stateMachineArn) => {
    if (!stateMachineArn) throw new Error('the drift task needs the state machine ARN ($$.StateMachine.Id) to start releases');
    return new SfnDomainFlowStarter({ client: sfn, stateMachineArn });
  },
  clock: systemClock,
  platformHost: requireEnv(DOMAIN_ENV.platformHost),
  platformDomain: requireEnv(DOMAIN_ENV.platformDomain),
  graceSeconds: requirePositiveIntEnv(DOMAIN_ENV.driftGraceSeconds),
  onFinding: (domain, finding) => {
    logger.info('domain drift finding', { domain, finding });
    metrics.addMetric(DRIFT_METRICS[finding], MetricUnit.Count, 1);
  },
});

// The powertools middlewares publish the findings' metrics at the end of each invocation.
export const checkDrift = middy<DriftCheckInput, DriftCheckResult>()
  .use(powertools())
  .handler(async (input) => {
    const result = await task.checkDrift(input);
    logger.info('drift check round', { ...result, cursor: undefined });
    return result;
  });
