// The IAM actions of the domain flow's tasks (and of the control API's edge writes), from what each
// calls; lib/constructs/domains/domain-flow.ts grants them.

/** KeyValueStore actions on the store's ARN: KvsEdgeRouter's writes (ETag, then PutKey IfMatch), and its clean-up after a release. */
export const KVS_ACTIONS = {
  write: ['cloudfront-keyvaluestore:DescribeKeyValueStore', 'cloudfront-keyvaluestore:PutKey'],
  forgetRefusal: [
    'cloudfront-keyvaluestore:DescribeKeyValueStore',
    'cloudfront-keyvaluestore:GetKey',
    'cloudfront-keyvaluestore:DeleteKey',
  ],
} as const;

/**
 * Tenant actions on distribution-tenant ARNs, per task: what CloudFrontCertificateAuthority calls,
 * plus what the AWS::CloudFront::DistributionTenant resource schema lists for a tenant with a
 * managed certificate. Not granted: wafv2:GetWebACL (no tenant names a web ACL) and
 * cloudfront:GetVpcOrigin (the distribution has no VPC origin).
 */
export const TENANT_ACTIONS = {
  requestCertificate: [
    'cloudfront:GetDistributionTenant',
    'cloudfront:GetManagedCertificateDetails',
    'cloudfront:UpdateDistributionTenant',
    // CreateDistributionTenant with Tags (projectId) is also authorized as TagResource on the new tenant.
    'cloudfront:TagResource',
    'cloudfront:VerifyDnsConfiguration',
  ],
  checkCertificate: [
    'cloudfront:GetDistributionTenant',
    'cloudfront:GetManagedCertificateDetails',
    'cloudfront:UpdateDistributionTenant',
    'cloudfront:VerifyDnsConfiguration',
  ],
  releaseTenant: ['cloudfront:GetDistributionTenant', 'cloudfront:UpdateDistributionTenant', 'cloudfront:DeleteDistributionTenant'],
} as const;

/** Tasks whose UpdateDistributionTenant sends a certificate: the schema lists acm:DescribeCertificate for that. */
export const DESCRIBES_CERTIFICATES = ['requestCertificate', 'checkCertificate', 'releaseTenant'] as const;

/** The drift task: a Scan then conditional updates of Domains, detached domains' projects, and starting releases. */
export const DRIFT_CHECK_ACTIONS = {
  domains: ['dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
  projects: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  startRelease: ['states:StartExecution'],
} as const;
