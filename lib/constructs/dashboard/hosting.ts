import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { DockerImage, Duration, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { acknowledgeNag } from '../shared/nag.js';
import { accountUniqueName } from '../shared/names.js';
import { REPO_ROOT } from '../shared/platform-function.js';
import { nagArn } from './nag-arn.js';

/** CloudFront keeps the files until the next deployment invalidates them; browsers revalidate every time. */
export const DASHBOARD_CACHE_CONTROL = 'public, max-age=0, s-maxage=31536000, must-revalidate';

/**
 * `dashboard/` built with Vite at synth time on this machine (the Docker image is required by the
 * API and never pulled); the asset hash is the source's, so an unchanged app is built once.
 */
export function dashboardAppSource(): s3deploy.ISource {
  const appDir = join(REPO_ROOT, 'dashboard');
  return s3deploy.Source.asset(appDir, {
    exclude: ['node_modules', 'dist', '*.tsbuildinfo'],
    bundling: {
      image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22'),
      local: {
        tryBundle(outputDir: string): boolean {
          const vite = join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
          const args = [vite, 'build', appDir, '--config', join(appDir, 'vite.config.ts'), '--outDir', outputDir, '--emptyOutDir', '--logLevel', 'warn'];
          try {
            execFileSync(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
          } catch (error) {
            const e = error as { stdout?: Buffer; stderr?: Buffer; message: string };
            throw new Error(`Building the dashboard (vite build ${appDir}) failed: ${e.message}\n${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`);
          }
          return true;
        },
      },
    },
  });
}

export interface HostingProps {
  // The origins the CSP lets the app connect to.
  readonly controlApiOrigin: string;
  readonly cognitoDomainUrl: string;
  /** Where the app uploads deploy files (presigned PUTs). */
  readonly siteUploadOrigin: string;
}

export type Hosting = ReturnType<typeof createHosting>;

/** The dashboard's private bucket behind CloudFront (OAC, HTTPS, CSP), with its access-log bucket. */
export function createHosting(scope: Construct, props: HostingProps) {
  const stack = Stack.of(scope);
  // CloudFront standard logging (legacy) writes with ACLs, so this bucket keeps them enabled.
  const logBucket = new s3.Bucket(scope, 'AccessLogs', {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: s3.ObjectOwnership.OBJECT_WRITER,
    lifecycleRules: [{ expiration: Duration.days(90) }],
    removalPolicy: RemovalPolicy.RETAIN,
  });

  const siteBucket = new s3.Bucket(scope, 'Site', {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    // SSE-S3: a customer KMS key would complicate OAC for no gain (public app code).
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    serverAccessLogsBucket: logBucket,
    serverAccessLogsPrefix: 'site/',
    // Build output only: the deployment deletes its objects with it (retainOnDelete: false).
    removalPolicy: RemovalPolicy.DESTROY,
  });

  const csp = Fn.join(' ', [
    'default-src \'self\';',
    'script-src \'self\';',
    'style-src \'self\';',
    'img-src \'self\' data:;',
    'font-src \'self\';',
    Fn.join(' ', ['connect-src \'self\'', props.controlApiOrigin, props.siteUploadOrigin, `${props.cognitoDomainUrl};`]),
    'frame-ancestors \'none\';',
    'base-uri \'self\';',
    'form-action \'self\';',
    'object-src \'none\'',
  ]);
  const responseHeadersPolicy = new cloudfront.ResponseHeadersPolicy(scope, 'SecurityHeaders', {
    // CloudFront names are unique per account, across regions.
    responseHeadersPolicyName: accountUniqueName(stack, 'dashboard-headers', 128),
    comment: `${stack.stackName}: dashboard security headers (CSP: control API and Cognito only)`,
    securityHeadersBehavior: {
      contentSecurityPolicy: { contentSecurityPolicy: csp, override: true },
      strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
      contentTypeOptions: { override: true },
      frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
      // The OAuth redirect puts the authorization code in the URL: never send it on.
      referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
      xssProtection: { protection: false, override: true },
    },
    customHeadersBehavior: {
      customHeaders: [
        { header: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=(), payment=()', override: true },
        { header: 'Cross-Origin-Opener-Policy', value: 'same-origin', override: true },
      ],
    },
  });

  const distribution = new cloudfront.Distribution(scope, 'Distribution', {
    comment: `${stack.stackName}: owners' dashboard`,
    defaultRootObject: 'index.html',
    httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
    defaultBehavior: {
      origin: S3BucketOrigin.withOriginAccessControl(siteBucket, {
        originAccessControl: new cloudfront.S3OriginAccessControl(scope, 'SiteAccessControl', {
          originAccessControlName: accountUniqueName(stack, 'dashboard', 64),
          signing: cloudfront.Signing.SIGV4_ALWAYS,
        }),
      }),
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
      cachedMethods: cloudfront.CachedMethods.CACHE_GET_HEAD,
      responseHeadersPolicy,
    },
    // The app routes with the URL hash (#/keys), so every page is /index.html: no error-page rewrites.
    enableLogging: true,
    logBucket,
    logFilePrefix: 'cloudfront/',
  });
  acknowledgeDistributionNagFindings(distribution);
  // The dashboard's origin (CORS, callback URLs).
  const dashboardOrigin = `https://${distribution.distributionDomainName}`;
  return { logBucket, siteBucket, responseHeadersPolicy, distribution, dashboardOrigin };
}

export interface AppDeploymentProps {
  readonly hosting: Hosting;
  readonly appSource: s3deploy.ISource;
  /** The app's `config.json` (API URLs, Cognito domain and client). */
  readonly appConfig: Record<string, unknown>;
}

/** The built app and its `config.json`, deployed by a BucketDeployment whose role logs to its own group only. */
export function deployDashboardApp(scope: Construct, props: AppDeploymentProps) {
  const { hosting } = props;
  const deploymentRole = new iam.Role(scope, 'DeploymentRole', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: `Deploys the dashboard app to its bucket and invalidates the distribution (${scope.node.path})`,
  });
  const deploymentLogs = new logs.LogGroup(scope, 'DeploymentLogs', {
    retention: logs.RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  deploymentLogs.grantWrite(deploymentRole);
  const deployment = new s3deploy.BucketDeployment(scope, 'Deployment', {
    sources: [props.appSource, s3deploy.Source.jsonData('config.json', props.appConfig)],
    destinationBucket: hosting.siteBucket,
    cacheControl: [s3deploy.CacheControl.fromString(DASHBOARD_CACHE_CONTROL)],
    prune: true,
    retainOnDelete: false,
    distribution: hosting.distribution,
    distributionPaths: ['/*'],
    role: deploymentRole,
    logGroup: deploymentLogs,
    memoryLimit: 512,
  });
  acknowledgeAppDeploymentNagFindings(scope, hosting, deploymentRole);
  return { deployment, deploymentRole };
}

/** cdk-nag findings of the distribution that are decisions of this design. */
function acknowledgeDistributionNagFindings(distribution: cloudfront.Distribution): void {
  const cfn = distribution.node.defaultChild as cloudfront.CfnDistribution;
  acknowledgeNag(cfn, {
    CFR1: 'The dashboard serves the platform\'s customers wherever they are; the platform has no country restriction to enforce. It serves a static app: the data lives behind the Cognito-protected control API.',
    CFR2: 'No WAF web ACL: the distribution serves only the static, public build of the app from S3 through OAC (GET/HEAD, no forms, no origin compute), and CloudFront has AWS Shield Standard. The API the app calls is a separate, authenticated and throttled origin.',
    CFR4: 'The dashboard is served on its *.cloudfront.net name (the Cognito callback URL), whose default certificate cannot set a minimum TLS version. Browsers negotiate TLS 1.2/1.3 with CloudFront anyway; a custom domain with an ACM certificate (TLSv1.2_2021) is a deployment option for later.',
  });
}

/** cdk-nag findings of CDK's BucketDeployment (decisions of aws-cdk-lib), once the deployment exists. */
function acknowledgeAppDeploymentNagFindings(scope: Construct, hosting: Hosting, deploymentRole: iam.Role) {
  const stack = Stack.of(scope);
  const deploymentReason = (what: string) =>
    `Added by CDK's BucketDeployment to the role of its provider function: ${what}. The role is used by that function only, during deployments.`;
  acknowledgeNag(deploymentRole, {
    'IAM5[Action::s3:GetBucket*]': deploymentReason('read the CDK asset bucket holding the zipped app (s3:GetBucket* on that bucket)'),
    'IAM5[Action::s3:GetObject*]': deploymentReason('read the app\'s asset zip and the dashboard bucket\'s objects (s3:GetObject*)'),
    'IAM5[Action::s3:List*]': deploymentReason('list the asset bucket and the dashboard bucket to sync and prune (s3:List*)'),
    'IAM5[Action::s3:Abort*]': deploymentReason('abort failed multipart uploads to the dashboard bucket (s3:Abort*)'),
    'IAM5[Action::s3:DeleteObject*]': deploymentReason('delete files of the previous build from the dashboard bucket (prune) and all of them when the deployment is removed (s3:DeleteObject*)'),
    'IAM5[Resource::*]': deploymentReason('cloudfront:CreateInvalidation and cloudfront:GetInvalidation, which CDK grants on "*", to invalidate the dashboard distribution after each deployment'),
    [`IAM5[Resource::${nagArn(stack, hosting.siteBucket.arnForObjects('*'))}]`]: deploymentReason('write every object of the dashboard bucket, which holds nothing but this deployment\'s files'),
    [`IAM5[Resource::arn:${stack.partition}:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-${stack.region}/*]`]: deploymentReason('read the app\'s zip from the CDK bootstrap asset bucket, whose object keys are content hashes'),
  });
  const provider = stack.node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
  const providerFunction = provider?.node.defaultChild;
  if (providerFunction) {
    acknowledgeNag(providerFunction, {
      L1: 'The runtime of BucketDeployment\'s provider function is chosen by aws-cdk-lib (Python, with the AWS CLI layer) and moves with aws-cdk-lib upgrades; it runs only during deployments, never on a request path.',
    });
  }
}
