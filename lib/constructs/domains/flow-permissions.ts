import type { Stack } from 'aws-cdk-lib';

// The IAM actions of the domain flow's tasks (and of the account service's edge writes), from what
// each calls; lib/constructs/domains/domain-flow.ts grants them.

/**
 * The KeyValueStore data-plane actions, on the store's ARN only (the key-value-store resource type):
 * `write` is what KvsEdgeRouter.serve/redirect/refuse call (DescribeKeyValueStore for the ETag, then
 * PutKey with IfMatch); `forgetRefusal` is its clean-up after a release (GetKey, DeleteKey).
 */
export const KVS_ACTIONS = {
  write: ['cloudfront-keyvaluestore:DescribeKeyValueStore', 'cloudfront-keyvaluestore:PutKey'],
  forgetRefusal: [
    'cloudfront-keyvaluestore:DescribeKeyValueStore',
    'cloudfront-keyvaluestore:GetKey',
    'cloudfront-keyvaluestore:DeleteKey',
  ],
} as const;

/**
 * Tenant actions on distribution-tenant ARNs, per task, from what it calls
 * (CloudFrontCertificateAuthority.request / .status / .release) and, for creating or updating a
 * tenant with a managed certificate, what the AWS::CloudFront::DistributionTenant resource schema
 * lists for that (its create and update handlers: GetManagedCertificateDetails, TagResource,
 * VerifyDnsConfiguration, with acm:DescribeCertificate and acm:RequestCertificate). wafv2:GetWebACL,
 * also listed there, is for a tenant whose customizations name a web ACL: no call here passes one.
 * cloudfront:GetVpcOrigin, a dependent action of Create/UpdateDistributionTenant in the Service
 * Authorization Reference, concerns VPC origins, which the distribution does not have.
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
    // Attaches the issued managed certificate to the tenant (Customizations.Certificate).
    'cloudfront:UpdateDistributionTenant',
    // Part of the failure reason.
    'cloudfront:VerifyDnsConfiguration',
  ],
  // Takes the domain off (or disables), then deletes; the schema's delete handler lists the same three.
  releaseTenant: ['cloudfront:GetDistributionTenant', 'cloudfront:UpdateDistributionTenant', 'cloudfront:DeleteDistributionTenant'],
} as const;

/**
 * Tasks whose UpdateDistributionTenant sends a certificate (a managed certificate request, or the
 * tenant's Customizations.Certificate sent back as read or attached): the resource schema's update
 * handler lists acm:DescribeCertificate for that. checkCertificate also calls it itself.
 */
export const DESCRIBES_CERTIFICATES = ['requestCertificate', 'checkCertificate', 'releaseTenant'] as const;

/**
 * The drift task: its own Domains reads and writes (a Scan over the table, then each record read
 * and updated conditionally), the project configuration of a detached domain (Get/Update), edge
 * writes (refuse; serve again a domain whose redirect target was detached), and starting the
 * release branch on the state machine itself.
 */
export const DRIFT_CHECK_ACTIONS = {
  domains: ['dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
  projects: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  startRelease: ['states:StartExecution'],
} as const;

/**
 * An ARN as cdk-nag writes it in a finding id (IAM5 `Resource::`): unresolved pseudo parameters
 * as `<AWS::Name>`, everything else literal.
 */
export function nagArn(stack: Stack, arn: string): string {
  const render = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string' && v.Ref.startsWith('AWS::')) return `<${v.Ref}>`;
    const join = v['Fn::Join'] as [string, unknown[]] | undefined;
    if (join) return join[1].map(render).join(join[0]);
    throw new Error(`nagArn: cannot render ${JSON.stringify(value)}`);
  };
  return render(stack.resolve(arn));
}
