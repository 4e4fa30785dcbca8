import middy from '@middy/core';
import { DOMAIN_ENV } from '../../contracts/domains.js';
import { systemClock } from '../shared/clock.js';
import { documentClient as documents } from '../shared/runtime.js';
import { requireEnv } from '../shared/env.js';
import { powertools } from '../shared/middleware.js';
import { logger } from '../shared/powertools.js';
import { cloudFrontCertificates, kvsEdgeRouter } from './aws-adapters.js';
import { DynamoDbDomainStore } from './dynamodb-domain-store.js';
import { createReleaseTask, type ReleaseTaskInput, type ReleaseTaskResult } from './release-task.js';

// The domain flow's release task (DOMAIN_HANDLERS.tenantRelease), built once per cold start.
const task = createReleaseTask({
  domains: new DynamoDbDomainStore(documents, requireEnv(DOMAIN_ENV.domainsTable)),
  certificates: cloudFrontCertificates(requireEnv(DOMAIN_ENV.distributionId), requireEnv(DOMAIN_ENV.connectionGroupId)),
  edge: kvsEdgeRouter(requireEnv(DOMAIN_ENV.keyValueStoreArn)),
  clock: systemClock,
});

export const releaseTenant = middy<ReleaseTaskInput, ReleaseTaskResult>()
  .use(powertools())
  .handler(async (input) => {
    logger.appendKeys({ domain: input.domain, claimedAt: input.release.claimedAt });
    const result = await task.releaseTenant(input);
    logger.info('tenant release round', { ...result });
    return result;
  });
