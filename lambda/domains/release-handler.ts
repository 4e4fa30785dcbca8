import { ACMClient } from '@aws-sdk/client-acm';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import middy from '@middy/core';
import { DOMAIN_ENV } from '../../lib/constructs/domains/runtime-contract.js';
import { DynamoDbProjectStore } from '../projects/dynamodb-project-store.js';
import { CONTROL_PLANE, traced } from '../shared/aws-clients.js';
import { systemClock } from '../shared/clock.js';
import { createDocumentClient } from '../shared/dynamodb.js';
import { requireEnv } from '../shared/env.js';
import { powertools } from '../shared/middleware.js';
import { logger } from '../shared/powertools.js';
import { CloudFrontCertificateAuthority } from './cloudfront-certificate-authority.js';
import { DynamoDbDomainStore } from './dynamodb-domain-store.js';
import { KvsEdgeRouter } from './kvs-edge-router.js';
import { createReleaseTask, type ReleaseTaskInput, type ReleaseTaskResult } from './release-task.js';

// The domain flow's release task (DOMAIN_HANDLERS.tenantRelease). Module-scoped clients, built once
// per cold start from the environment the DomainFlow construct sets for this function.
const documents = createDocumentClient();

const task = createReleaseTask({
  domains: new DynamoDbDomainStore(documents, requireEnv(DOMAIN_ENV.domainsTable)),
  projects: new DynamoDbProjectStore(documents, requireEnv(DOMAIN_ENV.projectsTable)),
  certificates: new CloudFrontCertificateAuthority({
    cloudfront: traced(new CloudFrontClient(CONTROL_PLANE)),
    acm: traced(new ACMClient({ ...CONTROL_PLANE, region: 'us-east-1' })),
    distributionId: requireEnv(DOMAIN_ENV.distributionId),
    connectionGroupId: requireEnv(DOMAIN_ENV.connectionGroupId),
    // As in flow-handlers.ts: the tenant a domain was put on is the one it is released from.
    tenancy: 'domain',
  }),
  // The KeyValueStore's API is global (us-east-1), like CloudFront's.
  edge: new KvsEdgeRouter({
    client: traced(new CloudFrontKeyValueStoreClient({ ...CONTROL_PLANE, region: 'us-east-1' })),
    kvsArn: requireEnv(DOMAIN_ENV.keyValueStoreArn),
  }),
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
