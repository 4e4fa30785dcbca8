import { ACMClient } from '@aws-sdk/client-acm';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { DOMAIN_ENV } from '../../lib/constructs/domains/runtime-contract.js';
import { DynamoDbProjectStore } from '../projects/dynamodb-project-store.js';
import { systemClock } from '../shared/clock.js';
import { createDocumentClient } from '../shared/dynamodb.js';
import { requireEnv } from '../shared/env.js';
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
    cloudfront: new CloudFrontClient({ maxAttempts: 1 }),
    acm: new ACMClient({ region: 'us-east-1', maxAttempts: 1 }),
    distributionId: requireEnv(DOMAIN_ENV.distributionId),
    connectionGroupId: requireEnv(DOMAIN_ENV.connectionGroupId),
    // As in flow-handlers.ts: the tenant a domain was put on is the one it is released from.
    tenancy: 'domain',
  }),
  // The KeyValueStore's API is global (us-east-1), like CloudFront's.
  edge: new KvsEdgeRouter({ client: new CloudFrontKeyValueStoreClient({ region: 'us-east-1' }), kvsArn: requireEnv(DOMAIN_ENV.keyValueStoreArn) }),
  clock: systemClock,
});

export const releaseTenant = async (input: ReleaseTaskInput): Promise<ReleaseTaskResult> => {
  logger.appendKeys({ domain: input.domain, claimedAt: input.release.claimedAt });
  const result = await task.releaseTenant(input);
  logger.info('tenant release round', { ...result });
  return result;
};
