// Every Control Tower control (lib/policy-validation.ts) the app does not follow, where and why; a
// test checks that each entry still matches a finding.

/** A control acknowledged at construct paths: `Api/Messages/RestApi` is `<prefix>-Api/...`, `''` the app. */
export interface ControlTowerAcknowledgement {
  readonly control: string;
  readonly at: readonly string[];
  readonly reason: string;
}

const APP = '';
const PROJECTS_LOGS = 'DomainsData/Projects/AccessLogs';
const PROJECTS_SITES = 'DomainsData/Projects/Sites';
const DASHBOARD_LOGS = 'Dashboard/Dashboard/AccessLogs';
const DASHBOARD_SITE = 'Dashboard/Dashboard/Site';
const EDGE_DISTRIBUTION = 'DomainsData/Edge/Distribution';
const DASHBOARD_DISTRIBUTION = 'Dashboard/Dashboard/Distribution';

export const CONTROL_TOWER_ACKNOWLEDGEMENTS: readonly ControlTowerAcknowledgement[] = [
  {
    control: 'CT.LAMBDA.PR.3',
    at: [APP],
    reason:
      'No function reaches a private resource: they call AWS service APIs (DynamoDB, SQS, API Gateway, CloudFront, ACM, Route 53, S3) on their public, IAM-authenticated TLS endpoints. A customer-managed VPC would add NAT gateways or interface endpoints per AZ for nothing to protect inside it.',
  },
  {
    control: 'CT.CLOUDWATCH.PR.3',
    at: [APP],
    reason:
      'CloudWatch Logs encrypts every log group at rest with service keys. Who reads the logs is decided by IAM either way; a customer-managed KMS key would add a key and a key policy for the CloudWatch Logs service principal per region. Adopt one when a deployment\'s compliance regime requires it.',
  },
  {
    control: 'CT.CLOUDWATCH.PR.2',
    at: [APP],
    reason:
      'Operational logs are kept one month (functions) to three months (API access, flow execution) on purpose: they serve debugging and incident response, the access logs carry callers\' IP addresses, and a year would keep that personal data far longer than the platform needs it. For a deployment that must keep a year, PlatformFunction takes logRetention and MessagesApi accessLogRetention; the flow\'s execution log is set in lib/constructs/domains/domain-flow.ts.',
  },
  {
    control: 'CT.S3.PR.10',
    at: [PROJECTS_SITES, DASHBOARD_SITE],
    reason:
      'SSE-S3: the buckets hold public static files (project sites, the dashboard build) that CloudFront reads through Origin Access Control; a customer KMS key would need a key policy for the CloudFront service principal and a KMS call per uncached read, protecting nothing that is not served publicly.',
  },
  {
    control: 'CT.S3.PR.10',
    at: [PROJECTS_LOGS, DASHBOARD_LOGS],
    reason:
      'SSE-S3 on the access-log buckets: their writers (S3 server access logging, CloudFront standard logging) would each need grants on a customer KMS key policy, and the logs are read only by the account\'s operators, which IAM decides either way.',
  },
  {
    control: 'CT.S3.PR.11',
    at: [PROJECTS_LOGS, DASHBOARD_LOGS],
    reason:
      'Access-log buckets are written by the logging services under new keys only (nothing overwrites a log object) and expire by lifecycle; versioning would keep nothing more.',
  },
  {
    control: 'CT.S3.PR.11',
    at: [DASHBOARD_SITE],
    reason:
      'The dashboard bucket holds only the current build, rebuilt from the repository at every synth and synced with prune by the deployment; a previous version is restored by deploying the previous commit, so object versions would add nothing. The project sites bucket, holding customers\' uploads, is versioned.',
  },
  {
    control: 'CT.S3.PR.2',
    at: [PROJECTS_LOGS, DASHBOARD_LOGS],
    reason:
      'These are the access-log buckets the other buckets log to. Logging a log bucket to itself would log its own log deliveries, and to a third bucket would only move the question.',
  },
  {
    control: 'CT.S3.PR.4',
    at: [PROJECTS_LOGS, PROJECTS_SITES, DASHBOARD_LOGS, DASHBOARD_SITE],
    reason:
      'No component consumes S3 object events: site and dashboard objects are written by deploy steps that already know what they wrote, and logs are read by people. A notification target with no consumer would be dead configuration.',
  },
  {
    control: 'CT.S3.PR.6',
    at: [DASHBOARD_SITE],
    reason:
      'Unversioned and holding only the current build: each deployment replaces the files and prunes removed ones, so there are no old versions or stale objects for a lifecycle rule to expire (the other buckets have lifecycle rules).',
  },
  {
    control: 'CT.S3.PR.9',
    at: [PROJECTS_LOGS, PROJECTS_SITES, DASHBOARD_LOGS, DASHBOARD_SITE],
    reason:
      'Nothing here must be immutable: sites and the dashboard are overwritten and deleted by deploys and project removal, and logs expire by lifecycle. Object Lock (write once, read many) would block exactly those operations.',
  },
  {
    control: 'CT.CLOUDFRONT.PR.1',
    at: [EDGE_DISTRIBUTION],
    reason:
      'The viewer-request function maps every URI, "/" included, to an object under the tenant\'s deploy prefix ("/" to "/<prefix>/index.html", edge/viewer-request.js); one distribution-wide root object would name no real object for a multi-tenant distribution.',
  },
  {
    control: 'CT.CLOUDFRONT.PR.4',
    at: [EDGE_DISTRIBUTION, DASHBOARD_DISTRIBUTION],
    reason:
      'One S3 origin in the platform region: an origin group would need a replica bucket in a second region kept in sync by every deploy (and, for sites, the KeyValueStore routing too). S3\'s regional availability is the accepted level for static files CloudFront also caches.',
  },
  {
    control: 'CT.CLOUDFRONT.PR.5',
    at: [EDGE_DISTRIBUTION],
    reason:
      'Legacy standard logging needs a bucket with ACLs enabled (the platform buckets are BucketOwnerEnforced), and standard logging v2 must be configured in us-east-1 while this stack is in the platform region; edge access logging is a follow-up in the us-east-1 stack (as cdk-nag CFR3 on the same distribution says). The site bucket has server access logs meanwhile.',
  },
  {
    control: 'CT.CLOUDFRONT.PR.6',
    at: [EDGE_DISTRIBUTION],
    reason:
      'False positive: the distribution uses the ACM wildcard certificate from the us-east-1 EdgeCertificate stack (SNI only, TLSv1.2_2021), referenced with Fn::GetStackOutput; the rule accepts only a literal ARN or a Ref/GetAtt of a certificate in the same template.',
  },
  {
    control: 'CT.CLOUDFRONT.PR.7',
    at: [EDGE_DISTRIBUTION],
    reason:
      'False positive: SslSupportMethod is sni-only with the ACM certificate of the us-east-1 EdgeCertificate stack, referenced with Fn::GetStackOutput; the rule accepts only a literal ARN or a Ref/GetAtt of a certificate in the same template.',
  },
  {
    control: 'CT.CLOUDFRONT.PR.6',
    at: [DASHBOARD_DISTRIBUTION],
    reason:
      'The dashboard is served on its *.cloudfront.net name (the Cognito callback URL) with CloudFront\'s default certificate, as cdk-nag CFR4 on the same distribution says; a custom domain with an ACM certificate is a deployment option for later.',
  },
  {
    control: 'CT.CLOUDFRONT.PR.7',
    at: [DASHBOARD_DISTRIBUTION],
    reason:
      'With CloudFront\'s default *.cloudfront.net certificate there is no SSL support method to set (SNI applies to custom certificates); it follows from serving the dashboard on its cloudfront.net name (CT.CLOUDFRONT.PR.6).',
  },
  {
    control: 'CT.CLOUDFRONT.PR.9',
    at: [DASHBOARD_DISTRIBUTION],
    reason:
      'CloudFront\'s default *.cloudfront.net certificate cannot set a minimum protocol version; browsers negotiate TLS 1.2/1.3 with CloudFront anyway. A custom domain with an ACM certificate (TLSv1.2_2021) is a deployment option for later.',
  },
  {
    control: 'CT.LAMBDA.PR.2',
    at: ['Api/Messages/RestApi', 'Api/Messages/Authorizer/Function', 'Dashboard/Dashboard/ControlApi'],
    reason:
      'False positive: these are the CDK\'s invoke permissions for apigateway.amazonaws.com, each with a SourceArn scoped to this API\'s execute-api ARN (stage, method and path, or the authorizer), built with Fn::Join; the rule accepts a SourceArn only as a literal string or a Ref/GetAtt.',
  },
  {
    control: 'CT.SQS.PR.1',
    at: ['Data/Messages/DeadLetterQueue', 'Data/Webhooks/DeliveryDeadLetterQueue'],
    reason:
      'These are the dead-letter queues of the messages queue and of the webhook delivery queue; a dead-letter queue of their own would only move failed messages a second time. Each keeps them 14 days and an alarm watches its depth.',
  },
];

/** Controls left out until the branch that fixes them merges (the app is meant to follow them). */
export const DEFERRED_CONTROLS: readonly { control: string; fix: string }[] = [];
