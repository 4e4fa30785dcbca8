import { ACMClient } from '@aws-sdk/client-acm';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { DOMAIN_ENV } from '../../contracts/domains.js';
import { MANAGEMENT_PLANE, traced } from '../shared/aws-clients.js';
import { CloudFrontCertificateAuthority } from './cloudfront-certificate-authority.js';
import { NodeDnsResolver } from './dns-resolver.js';
import { KvsEdgeRouter } from './kvs-edge-router.js';

// The domain ports as every deployed function builds them: traced clients, management-API retries.

/** The KeyValueStore's API is global (us-east-1), like CloudFront's. */
export function kvsEdgeRouter(kvsArn: string): KvsEdgeRouter {
  return new KvsEdgeRouter({
    client: traced(new CloudFrontKeyValueStoreClient({ ...MANAGEMENT_PLANE, region: 'us-east-1' })),
    kvsArn,
  });
}

/** The certificate port on CloudFront tenants (one per domain, docs/contributors/domain-flow.md). */
export function cloudFrontCertificates(distributionId: string, connectionGroupId: string) {
  return new CloudFrontCertificateAuthority({
    cloudfront: traced(new CloudFrontClient(MANAGEMENT_PLANE)),
    acm: traced(new ACMClient({ ...MANAGEMENT_PLANE, region: 'us-east-1' })),
    distributionId,
    connectionGroupId,
  });
}

/** Public DNS: the resolvers in DOMAIN_ENV.dnsServers when the stack sets them, else the runtime's. */
export function domainDnsResolver(): NodeDnsResolver {
  const servers = process.env[DOMAIN_ENV.dnsServers];
  return new NodeDnsResolver(servers ? servers.split(',') : undefined);
}
