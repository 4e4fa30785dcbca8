import { ACMClient } from '@aws-sdk/client-acm';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { DOMAIN_ENV } from '../../contracts/domains.js';
import { MANAGEMENT_PLANE, traced } from '../shared/aws-clients.js';
import { CloudFrontCertificateAuthority } from './cloudfront-certificate-authority.js';
import { NodeDnsResolver } from './dns-resolver.js';
import { KvsEdgeRouter } from './kvs-edge-router.js';

// The domain ports as every deployed function builds them (the flow's tasks, the release and drift
// tasks, the control API): traced SDK clients with the management-API retries (MANAGEMENT_PLANE),
// created once per cold start by the handler module that calls these.

/** The KeyValueStore the viewer-request function reads. Its API is global (us-east-1), like CloudFront's. */
export function kvsEdgeRouter(kvsArn: string): KvsEdgeRouter {
  return new KvsEdgeRouter({
    client: traced(new CloudFrontKeyValueStoreClient({ ...MANAGEMENT_PLANE, region: 'us-east-1' })),
    kvsArn,
  });
}

/**
 * Distribution tenants with CloudFront-managed certificates (ACM in us-east-1). One tenant per
 * domain: a tenant has one pending certificate request at a time, so per-project tenants would
 * make a second domain wait for the first one's certificate. The flow that puts a domain on its
 * tenant and the release that takes it off both build it here, so they agree on the tenant.
 */
export function cloudFrontCertificates(
  distributionId: string,
  connectionGroupId: string,
): CloudFrontCertificateAuthority {
  return new CloudFrontCertificateAuthority({
    cloudfront: traced(new CloudFrontClient(MANAGEMENT_PLANE)),
    acm: traced(new ACMClient({ ...MANAGEMENT_PLANE, region: 'us-east-1' })),
    distributionId,
    connectionGroupId,
    tenancy: 'domain',
  });
}

/** Public DNS: the resolvers in DOMAIN_ENV.dnsServers when the stack sets them, else the runtime's. */
export function domainDnsResolver(): NodeDnsResolver {
  const servers = process.env[DOMAIN_ENV.dnsServers];
  return new NodeDnsResolver(servers ? servers.split(',') : undefined);
}
