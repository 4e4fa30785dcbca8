import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { CfnOutput, DockerImage, Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { type PlatformConfig, runtimeConfig } from '../../config/index.js';
import type { EdgeResources } from '../domains/edge.js';
import type { ProjectsDataResources } from '../domains/projects-data.js';
import { KVS_ACTIONS } from '../domains/domain-flow.js';
import { accountUniqueName } from '../shared/names.js';
import { DOMAIN_TABLE_KEYS } from '../../../contracts/domains.js';
import { gatewayResponseHeaders, gatewayResponseTemplate } from '../shared/gateway-response-mapping.js';
import type { MessagesTables } from '../messages/messages-data.js';
import { TABLE_KEYS } from '../../../contracts/messages.js';
import { PlatformFunction, REPO_ROOT } from '../shared/platform-function.js';
import { apigatewayArn } from '../shared/arns.js';
import { CONTROL_GATEWAY_RESPONSES } from '../../../contracts/control-gateway-responses.js';
import type { DashboardDataResources } from './dashboard-data.js';
import { CONTROL_API_HANDLER, CONTROL_ENV } from '../../../contracts/control-api.js';

/** The control API's stage (the version in its URL, as the Messages API's). */
export const CONTROL_STAGE_NAME = 'v1';

/** The OAuth scopes of the dashboard's app client (the SPA asks for exactly these). */
export const DASHBOARD_SCOPES = ['openid', 'email', 'profile'] as const;

/** The stack outputs of the dashboard (fixed logical ids). */
export const DASHBOARD_OUTPUTS = {
  dashboardUrl: 'DashboardUrl',
  controlApiUrl: 'ControlApiUrl',
  userPoolId: 'UserPoolId',
  userPoolClientId: 'UserPoolClientId',
  managedLoginUrl: 'ManagedLoginUrl',
} as const;

/**
 * Cache-Control of the dashboard's files: CloudFront keeps them until the next deployment
 * invalidates them (`s-maxage`), browsers revalidate every time (`max-age=0`), so a deploy reaches
 * every owner on their next load.
 */
export const DASHBOARD_CACHE_CONTROL = 'public, max-age=0, s-maxage=31536000, must-revalidate';

/** The headers the dashboard sends to the control API (preflight Access-Control-Allow-Headers). */
export const CONTROL_CORS_HEADERS = ['Authorization', 'Content-Type', 'Accept'] as const;
/** The methods of the control API's routes (openapi/control-plane.yaml). */
export const CONTROL_CORS_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'] as const;

/** What the control plane needs from the Messages API (MessagesApi.controlPlane). */
export interface MessagesControlPlaneResources {
  readonly restApiId: string;
  readonly stageName: string;
  readonly standardPlanIds: { readonly free: string; readonly pro: string; readonly business: string };
}

export interface DashboardProps {
  readonly config: PlatformConfig;
  /** The user pool, its managed-login domain and the owners table (stateful stack). */
  readonly data: DashboardDataResources;
  /** The Messages API tables: accounts, API keys (and their `byAccount` index), rate limits. */
  readonly messagesTables: Pick<MessagesTables, 'accounts' | 'apiKeys' | 'rateLimits'>;
  /** The Messages API's REST API, stage and standard usage plans (customer keys are bound to them). */
  readonly messagesControlPlane: MessagesControlPlaneResources;
  /** The Messages API's public base URL (shown in the dashboard's examples). */
  readonly messagesApiUrl: string;
  /** Projects and Domains tables, site bucket, KeyValueStore. */
  readonly projects: ProjectsDataResources;
  /** The multi-tenant distribution, connection group and platform host. */
  readonly edge: EdgeResources;
  /** The custom-domain flow (verify starts an execution). */
  readonly domainFlow: sfn.IStateMachine;
  /**
   * The control API handler module, relative to the repository root or absolute.
   * @default CONTROL_API_HANDLER.entry
   */
  readonly controlHandlerEntry?: string;
  /**
   * The built dashboard app (index.html and its assets).
   * @default dashboardAppSource(): `dashboard/` built with Vite at synth time
   */
  readonly appSource?: s3deploy.ISource;
  /**
   * Steady-state requests per second of the control API's stage, all callers together.
   * @default 50
   */
  readonly throttleRateLimit?: number;
  /**
   * Burst of the control API's stage.
   * @default 100
   */
  readonly throttleBurstLimit?: number;
  /**
   * How long an owner's ID token (and the dashboard session) lasts.
   * @default Duration.hours(1)
   */
  readonly idTokenValidity?: Duration;
  /**
   * Retention of the control API's access logs.
   * @default logs.RetentionDays.THREE_MONTHS
   */
  readonly accessLogRetention?: logs.RetentionDays;
  /**
   * How long the CloudFront and S3 access logs of the dashboard are kept.
   * @default Duration.days(90)
   */
  readonly hostingLogRetention?: Duration;
  /**
   * API Gateway execution logging level (stage `*\/*`). It needs the account's API Gateway
   * CloudWatch Logs role, which the Messages API sets (MessagesApi manageCloudWatchRole).
   * @default apigw.MethodLoggingLevel.ERROR
   */
  readonly executionLogLevel?: apigw.MethodLoggingLevel;
  /**
   * Where alarms notify (alarm and OK actions).
   * @default - no actions; the alarm is visible in CloudWatch only
   */
  readonly alarmTopic?: sns.ITopic;
}

/**
 * The dashboard app as a deployment source: `dashboard/` built with Vite at synth time, on this
 * machine (local bundling: no Docker; the image is required by the API and never pulled). The asset
 * hash is the source's (node_modules and earlier builds excluded), so an unchanged app is not
 * rebuilt within one cloud assembly.
 */
export function dashboardAppSource(appDir: string = join(REPO_ROOT, 'dashboard')): s3deploy.ISource {
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

/**
 * The owners' dashboard on AWS (stateless part):
 *
 * - **Hosting**: a private bucket (SSE-S3, TLS only, no public access) behind a CloudFront
 *   distribution with Origin Access Control, HTTPS only, security headers and a Content Security
 *   Policy that lets the app talk to the control API and the Cognito domain only; the built app
 *   plus `config.json` (API URLs, Cognito domain and client) deployed by a BucketDeployment, which
 *   invalidates the distribution. CloudFront and S3 access logs go to a log bucket.
 * - **Sign-in**: the app client of the user pool (public, authorization code with PKCE, callback
 *   and logout URL = the distribution's root) and its managed login branding (Cognito's defaults).
 * - **Control API**: a REST API whose every method (root and `{proxy+}`, ANY) needs a Cognito ID
 *   token and goes to one Lambda (the control-plane handler); CORS for the dashboard's origin only
 *   (preflights without auth, gateway responses with the CORS header and problem bodies), access
 *   logs, X-Ray, stage throttling, a 5XX alarm.
 *
 * Why the site bucket is here and not in the stateful stack: the distribution's OAC bucket policy
 * names the distribution, and the distribution's CSP names the control API, so bucket,
 * distribution and API must share a stack (otherwise the two stacks reference each other). The
 * bucket holds only build output that every deployment replaces, so nothing is lost with it; its
 * objects are deleted with the deployment, and the bucket with the stack.
 *
 * Least privilege of the control Lambda, from what the handler's adapters call (ControlPlane,
 * ProjectService and DomainService as an owner reaches them: plans, bans and new Enterprise plans
 * are operator-only and refused before any AWS call):
 *
 * | resource                      | actions                                                                  | called by |
 * | ----------------------------- | ------------------------------------------------------------------------ | --------- |
 * | Owners table                  | GetItem, PutItem                                                         | owner directory (sign-in → account) |
 * | Accounts table                | GetItem, PutItem                                                         | DynamoDbAccountStore (get, create for a new owner) |
 * | API keys table / `byAccount`  | PutItem, UpdateItem / Query                                              | DynamoDbKeyStore (put, update, listByAccount) |
 * | Rate limits table             | GetItem, UpdateItem                                                      | DynamoDbLimiterStore (activate, revoke, get) |
 * | API Gateway `/apikeys`        | POST; PUT on `/tags/*` (tag on create)                                   | createKey (CreateApiKey with tags) |
 * | API Gateway `/apikeys/*`      | DELETE                                                                   | revokeKey, createKey's clean-up (DeleteApiKey) |
 * | `/usageplans/*\/keys[/*]`     | POST; GET                                                                | createKey (CreateUsagePlanKey; GetUsagePlanKey on conflict) |
 * | Projects table / `byAccount`  | GetItem, PutItem, UpdateItem, DeleteItem / Query                         | DynamoDbProjectStore |
 * | Domains table / `byProject`   | GetItem, PutItem, UpdateItem / Query                                     | DynamoDbDomainStore |
 * | site bucket `projects/*`      | s3:PutObject                                                             | S3SiteStorage (deploys) |
 * | KeyValueStore                 | DescribeKeyValueStore, PutKey                                            | KvsEdgeRouter (serve, redirect, refuse) |
 * | domain flow state machine     | states:StartExecution                                                    | SfnDomainFlowStarter (verify, re-verify; release on remove) |
 *
 * No CloudFront tenant or ACM action: removing a domain refuses it at the edge and hands the
 * release of its tenant to the domain flow (whose release task holds those grants).
 */
export class Dashboard extends Construct {
  readonly siteBucket: s3.Bucket;
  readonly logBucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly responseHeadersPolicy: cloudfront.ResponseHeadersPolicy;
  readonly deployment: s3deploy.BucketDeployment;
  readonly userPoolClient: cognito.UserPoolClient;
  readonly managedLoginBranding: cognito.CfnManagedLoginBranding;
  readonly api: apigw.RestApi;
  readonly authorizer: apigw.CognitoUserPoolsAuthorizer;
  readonly controlFunction: PlatformFunction;
  readonly alarms: { readonly serverErrors: cloudwatch.Alarm };
  /** `https://<distribution domain>`: the dashboard's origin (CORS, callback URLs). */
  readonly dashboardOrigin: string;
  /** The control API's base URL, without a trailing slash (`https://<id>.execute-api.<region>.<suffix>/v1`). */
  readonly controlApiUrl: string;
  /** `https://<prefix>.auth.<region>.amazoncognito.com`: managed login and the OAuth endpoints. */
  readonly cognitoDomainUrl: string;
  readonly outputs: Readonly<Record<keyof typeof DASHBOARD_OUTPUTS, CfnOutput>>;
  /** The role of BucketDeployment's provider function (logs to its own log group only). */
  readonly deploymentRole: iam.Role;
  private readonly siteObjectsArn: string;

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { data } = props;

    // ---- Control API (no methods yet: CORS and the CSP need each other's origin) ---------------
    const accessLogs = new logs.LogGroup(this, 'ControlApiAccessLogs', {
      retention: props.accessLogRetention ?? logs.RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const F = apigw.AccessLogField;
    this.api = new apigw.RestApi(this, 'ControlApi', {
      restApiName: `${stack.stackName}-control`,
      description: 'Control-plane API of the owners\' dashboard (Cognito ID tokens; keys, usage, projects, domains)',
      endpointConfiguration: { types: [apigw.EndpointType.REGIONAL] },
      // The account's API Gateway CloudWatch Logs role is the Messages API's (MessagesApi manageCloudWatchRole).
      cloudWatchRole: false,
      deployOptions: {
        stageName: CONTROL_STAGE_NAME,
        accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigw.AccessLogFormat.custom(
          JSON.stringify({
            requestId: F.contextRequestId(),
            extendedRequestId: F.contextExtendedRequestId(),
            ip: F.contextIdentitySourceIp(),
            userAgent: F.contextIdentityUserAgent(),
            requestTime: F.contextRequestTime(),
            httpMethod: F.contextHttpMethod(),
            resourcePath: F.contextResourcePath(),
            path: F.contextPath(),
            status: F.contextStatus(),
            responseLength: F.contextResponseLength(),
            responseLatency: F.contextResponseLatency(),
            integrationStatus: F.contextIntegrationStatus(),
            integrationLatency: F.contextIntegrationLatency(),
            // The owner's Cognito sub (never the token).
            sub: F.contextAuthorizerClaims('sub'),
            errorMessage: F.contextErrorMessage(),
            errorResponseType: F.contextErrorResponseType(),
            xrayTraceId: F.contextXrayTraceId(),
          }),
        ),
        tracingEnabled: true,
        loggingLevel: props.executionLogLevel ?? apigw.MethodLoggingLevel.ERROR,
        // Data trace would log whole requests, ID tokens included.
        dataTraceEnabled: false,
        metricsEnabled: false,
        throttlingRateLimit: props.throttleRateLimit ?? 50,
        throttlingBurstLimit: props.throttleBurstLimit ?? 100,
      },
    });
    // The ControlApiUrl output replaces the RestApi's own Endpoint output (its URL ends with "/").
    this.api.node.tryRemoveChild('Endpoint');
    this.controlApiUrl = Fn.join('', [
      'https://',
      this.api.restApiId,
      '.execute-api.',
      stack.region,
      '.',
      stack.urlSuffix,
      '/',
      CONTROL_STAGE_NAME,
    ]);
    const controlApiOrigin = Fn.join('', ['https://', this.api.restApiId, '.execute-api.', stack.region, '.', stack.urlSuffix]);
    this.cognitoDomainUrl = data.userPoolDomain.baseUrl();

    // ---- Hosting ---------------------------------------------------------------------------------
    const hostingLogRetention = props.hostingLogRetention ?? Duration.days(90);
    // CloudFront standard logging (legacy) writes with ACLs, so this bucket keeps them enabled
    // (object writer); nothing here is public. S3 server access logs arrive by bucket policy.
    this.logBucket = new s3.Bucket(this, 'AccessLogs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: hostingLogRetention }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.siteBucket = new s3.Bucket(this, 'Site', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      // SSE-S3: CloudFront reads through OAC, which a customer KMS key would complicate for no gain (public app code).
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.logBucket,
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
      Fn.join(' ', ['connect-src \'self\'', controlApiOrigin, `${this.cognitoDomainUrl};`]),
      'frame-ancestors \'none\';',
      'base-uri \'self\';',
      'form-action \'self\';',
      'object-src \'none\'',
    ]);
    this.responseHeadersPolicy = new cloudfront.ResponseHeadersPolicy(this, 'SecurityHeaders', {
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

    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `${stack.stackName}: owners' dashboard`,
      defaultRootObject: 'index.html',
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.siteBucket, {
          originAccessControl: new cloudfront.S3OriginAccessControl(this, 'SiteAccessControl', {
            originAccessControlName: accountUniqueName(stack, 'dashboard', 64),
            signing: cloudfront.Signing.SIGV4_ALWAYS,
          }),
        }),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        cachedMethods: cloudfront.CachedMethods.CACHE_GET_HEAD,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.responseHeadersPolicy,
        compress: true,
      },
      // The app routes with the URL hash (#/keys), so every page is /index.html: no error-page rewrites.
      enableLogging: true,
      logBucket: this.logBucket,
      logFilePrefix: 'cloudfront/',
    });
    this.dashboardOrigin = `https://${this.distribution.distributionDomainName}`;
    const dashboardRoot = `${this.dashboardOrigin}/`;

    // ---- Sign-in: the app client -----------------------------------------------------------------
    this.userPoolClient = new cognito.UserPoolClient(this, 'AppClient', {
      userPool: data.userPool,
      userPoolClientName: `${stack.stackName}-dashboard`,
      // A browser app keeps no secret: authorization code with PKCE.
      generateSecret: false,
      authFlows: { userSrp: true },
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL, cognito.OAuthScope.PROFILE],
        callbackUrls: [dashboardRoot],
        logoutUrls: [dashboardRoot],
      },
      supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      idTokenValidity: props.idTokenValidity ?? Duration.hours(1),
      accessTokenValidity: props.idTokenValidity ?? Duration.hours(1),
      // The app keeps no refresh token (it signs in again when the ID token expires).
      refreshTokenValidity: Duration.days(1),
      enableTokenRevocation: true,
    });
    // Managed login pages need a branding style per client; Cognito's own look.
    this.managedLoginBranding = new cognito.CfnManagedLoginBranding(this, 'ManagedLoginBranding', {
      userPoolId: data.userPool.userPoolId,
      clientId: this.userPoolClient.userPoolClientId,
      useCognitoProvidedValues: true,
    });

    // ---- Control API: function, authorizer, methods, CORS ----------------------------------------
    this.siteObjectsArn = props.projects.siteBucket.arnForObjects('projects/*');
    this.controlFunction = this.createControlFunction(stack, props);

    this.authorizer = new apigw.CognitoUserPoolsAuthorizer(this, 'CognitoAuthorizer', {
      cognitoUserPools: [data.userPool],
      // ID tokens (no scopes on the methods): the handler reads the owner's sub and email claims.
      identitySource: apigw.IdentitySource.header('Authorization'),
      resultsCacheTtl: Duration.minutes(5),
    });
    const cors: apigw.CorsOptions = {
      allowOrigins: [this.dashboardOrigin],
      allowMethods: [...CONTROL_CORS_METHODS],
      allowHeaders: [...CONTROL_CORS_HEADERS],
      exposeHeaders: ['X-Request-Id', 'Allow', 'Retry-After'],
      maxAge: Duration.hours(1),
    };
    const integration = new apigw.LambdaIntegration(this.controlFunction.function, {
      proxy: true,
      allowTestInvoke: false,
    });
    const methodOptions: apigw.MethodOptions = {
      authorizer: this.authorizer,
      authorizationType: apigw.AuthorizationType.COGNITO,
    };
    this.api.root.addCorsPreflight(cors);
    this.api.root.addMethod('ANY', integration, methodOptions);
    const proxy = this.api.root.addResource('{proxy+}');
    proxy.addCorsPreflight(cors);
    proxy.addMethod('ANY', integration, methodOptions);

    const allowOrigin = { 'Access-Control-Allow-Origin': this.dashboardOrigin, Vary: 'Origin' };
    for (const def of CONTROL_GATEWAY_RESPONSES) {
      const withCors = { ...def, headers: { ...def.headers, ...allowOrigin } };
      this.api.addGatewayResponse(`Response${def.type}`, {
        type: apigw.ResponseType.of(def.type),
        statusCode: String(def.statusCode),
        responseHeaders: gatewayResponseHeaders(withCors),
        templates: { 'application/json': gatewayResponseTemplate(def) },
      });
    }

    // ---- The app and its config.json -------------------------------------------------------------
    const deploymentRole = new iam.Role(this, 'DeploymentRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Deploys the dashboard app to its bucket and invalidates the distribution (${this.node.path})`,
    });
    const deploymentLogs = new logs.LogGroup(this, 'DeploymentLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    deploymentLogs.grantWrite(deploymentRole);
    this.deploymentRole = deploymentRole;
    this.deployment = new s3deploy.BucketDeployment(this, 'Deployment', {
      sources: [
        props.appSource ?? dashboardAppSource(),
        s3deploy.Source.jsonData('config.json', {
          apiBaseUrl: this.controlApiUrl,
          messagesApiUrl: props.messagesApiUrl,
          platformDomain: props.config.platform.domain,
          auth: {
            kind: 'cognito',
            domain: this.cognitoDomainUrl,
            clientId: this.userPoolClient.userPoolClientId,
            scopes: [...DASHBOARD_SCOPES],
          },
        }),
      ],
      destinationBucket: this.siteBucket,
      cacheControl: [s3deploy.CacheControl.fromString(DASHBOARD_CACHE_CONTROL)],
      prune: true,
      retainOnDelete: false,
      distribution: this.distribution,
      distributionPaths: ['/*'],
      role: deploymentRole,
      logGroup: deploymentLogs,
      memoryLimit: 512,
    });

    // ---- Alarm -------------------------------------------------------------------------------------
    const serverErrors = new cloudwatch.Alarm(this, 'ServerErrorAlarm', {
      alarmDescription:
        'The dashboard\'s control API answered 5XX (handler errors, timeouts, or AWS calls it makes failing): owners see "Service Unavailable". Read the control function\'s logs and X-Ray traces.',
      metric: this.api.metricServerError({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      threshold: 5,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.alarms = { serverErrors };
    if (props.alarmTopic) {
      const action = new cwActions.SnsAction(props.alarmTopic);
      serverErrors.addAlarmAction(action);
      serverErrors.addOkAction(action);
    }

    // ---- Outputs -----------------------------------------------------------------------------------
    const output = (name: string, value: string, description: string) => {
      const out = new CfnOutput(this, name, { value, description });
      out.overrideLogicalId(name);
      return out;
    };
    const o = DASHBOARD_OUTPUTS;
    this.outputs = {
      dashboardUrl: output(o.dashboardUrl, dashboardRoot, 'The owners\' dashboard (CloudFront)'),
      controlApiUrl: output(o.controlApiUrl, this.controlApiUrl, 'Base URL of the control-plane API (Cognito ID tokens; stage v1)'),
      userPoolId: output(o.userPoolId, data.userPool.userPoolId, 'The owners\' user pool'),
      userPoolClientId: output(o.userPoolClientId, this.userPoolClient.userPoolClientId, 'App client of the dashboard (public, authorization code with PKCE)'),
      managedLoginUrl: output(o.managedLoginUrl, this.cognitoDomainUrl, 'Cognito managed login domain (sign-up, sign-in, MFA set-up; OAuth endpoints)'),
    };

    this.acknowledgeNagFindings(stack);
  }

  private createControlFunction(stack: Stack, props: DashboardProps): PlatformFunction {
    const { config, data, messagesTables: tables, messagesControlPlane: cp, projects, edge } = props;
    const fn = new PlatformFunction(this, 'ControlFunction', {
      entry: props.controlHandlerEntry ?? CONTROL_API_HANDLER.entry,
      handler: CONTROL_API_HANDLER.handler,
      serviceName: 'control-api',
      description: 'Control-plane API of the dashboard: keys, plan and usage, projects, deploys and domains of the signed-in owner',
      // Deploys carry their files; API Gateway waits at most 29 s for an integration.
      memorySize: 1024,
      timeout: Duration.seconds(29),
      // Owners keep their dashboard during a Messages API flood (0: none); config protection.reservedConcurrency.
      reservedConcurrentExecutions: config.protection.reservedConcurrency.controlApi || undefined,
      environment: {
        [CONTROL_ENV.platformConfig]: JSON.stringify(runtimeConfig(config)),
        [CONTROL_ENV.apiKeysTable]: tables.apiKeys.tableName,
        [CONTROL_ENV.accountsTable]: tables.accounts.tableName,
        [CONTROL_ENV.rateLimitsTable]: tables.rateLimits.tableName,
        [CONTROL_ENV.ownersTable]: data.ownersTable.tableName,
        [CONTROL_ENV.restApiId]: cp.restApiId,
        [CONTROL_ENV.stageName]: cp.stageName,
        [CONTROL_ENV.usagePlanIds]: stack.toJsonString({
          free: cp.standardPlanIds.free,
          pro: cp.standardPlanIds.pro,
          business: cp.standardPlanIds.business,
        }),
        [CONTROL_ENV.projectsTable]: projects.tables.projects.tableName,
        [CONTROL_ENV.domainsTable]: projects.tables.domains.tableName,
        [CONTROL_ENV.siteBucket]: projects.siteBucket.bucketName,
        [CONTROL_ENV.keyValueStoreArn]: projects.keyValueStore.keyValueStoreArn,
        [CONTROL_ENV.platformHost]: edge.platformHost,
        [CONTROL_ENV.domainFlowArn]: props.domainFlow.stateMachineArn,
        [CONTROL_ENV.messagesApiUrl]: props.messagesApiUrl,
        [CONTROL_ENV.dashboardOrigin]: this.dashboardOrigin,
      },
    });

    // Keys, plan and usage (ControlPlane as an owner reaches it).
    fn.allowItems(data.ownersTable, 'GetItem', 'PutItem');
    fn.allowItems(tables.accounts, 'GetItem', 'PutItem');
    fn.allowItems(tables.apiKeys, 'PutItem', 'UpdateItem');
    fn.allow(['dynamodb:Query'], [`${tables.apiKeys.tableArn}/index/${TABLE_KEYS.apiKeys.accountIndex.name}`]);
    fn.allowItems(tables.rateLimits, 'GetItem', 'UpdateItem');
    fn.allow(['apigateway:POST'], [apigatewayArn(stack, '/apikeys')]);
    fn.allow(['apigateway:PUT'], [apigatewayArn(stack, '/tags/*')]);
    fn.allow(['apigateway:DELETE'], [apigatewayArn(stack, '/apikeys/*')]);
    fn.allow(['apigateway:POST'], [apigatewayArn(stack, '/usageplans/*/keys')]);
    fn.allow(['apigateway:GET'], [apigatewayArn(stack, '/usageplans/*/keys/*')]);

    // Projects and deploys (ProjectService).
    const { projects: projectsTable, domains: domainsTable } = projects.tables;
    fn.allowItems(projectsTable, 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem');
    fn.allow(['dynamodb:Query'], [`${projectsTable.tableArn}/index/${DOMAIN_TABLE_KEYS.projects.accountIndex.name}`]);
    // The site bucket is SSE-S3: no KMS grant.
    fn.allow(['s3:PutObject'], [this.siteObjectsArn]);
    fn.allow([...KVS_ACTIONS.write], [projects.keyValueStore.keyValueStoreArn]);

    // Custom domains (DomainService).
    fn.allowItems(domainsTable, 'GetItem', 'PutItem', 'UpdateItem');
    fn.allow(['dynamodb:Query'], [`${domainsTable.tableArn}/index/${DOMAIN_TABLE_KEYS.domains.projectIndex.name}`]);
    // Verify starts the flow; removal starts its release branch (the tenant goes asynchronously).
    fn.allow(['states:StartExecution'], [props.domainFlow.stateMachineArn]);
    return fn;
  }

  /** cdk-nag findings that are decisions of this design, each acknowledged on its own construct. */
  private acknowledgeNagFindings(stack: Stack): void {
    // ---- Control function ----
    const role = this.controlFunction.role;
    const runTimeKeys =
      'the control plane creates one internal API Gateway key per customer key at run time, so their ids cannot be named in the template';
    const iam5 = (resource: string, reason: string) =>
      Validations.of(role).acknowledge({ id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagArn(stack, resource)}]`, reason });
    iam5(
      apigatewayArn(stack, '/apikeys/*'),
      `DeleteApiKey when an owner revokes a key (and when a failed creation cleans up): ${runTimeKeys}. Only apigateway:DELETE, on the API keys path only.`,
    );
    iam5(
      apigatewayArn(stack, '/tags/*'),
      'Tag on create: CreateApiKey with tags (the customer key id) is also authorized as apigateway:PUT on the tags resource of the new key, whose id is only known at run time. Only PUT on tags.',
    );
    iam5(
      apigatewayArn(stack, '/usageplans/*/keys'),
      'CreateUsagePlanKey binds a new internal key to the account\'s usage plan: one of the three standard plans, or the Enterprise account\'s own usage plan, created at run time by an operator, so not every plan id can be named. Only apigateway:POST on usage-plan key collections.',
    );
    iam5(
      apigatewayArn(stack, '/usageplans/*/keys/*'),
      `GetUsagePlanKey, after a ConflictException on binding, to check that the key is already in that very plan: the keys are created at run time and the plan may be an Enterprise one (run time too). Only apigateway:GET.`,
    );
    // The site bucket is another stack's: its ARN reads as the cross-stack reference (weak or
    // strong, per cdk.json) only once the app is prepared, so this finding is acknowledged then.
    this.node.addValidation({
      validate: () => {
        iam5(
          this.siteObjectsArn,
          'Deploys write each file under projects/<projectId>/deploys/<deployId>/, ids created at run time: the grant is s3:PutObject only, under the projects/ prefix of the site bucket (no read, no delete, no other prefix).',
        );
        return [];
      },
    });

    // ---- Control API and hosting ----
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions::AwsSolutions-APIG2',
      reason:
        'Every route is validated by the control-plane handler, which answers RFC 9457 problems naming the field (openapi/control-plane.yaml); the API is one {proxy+} resource, so API Gateway request models would duplicate the handler\'s validation in a second, weaker place.',
    });
    Validations.of(this.api.deploymentStage).acknowledge({
      id: 'AwsSolutions::AwsSolutions-APIG3',
      reason:
        'No WAF web ACL: every method needs a Cognito ID token (checked by API Gateway before any code runs), the stage is throttled, and the handler scopes every request to the caller\'s own account. A web ACL can be associated per deployment without changing this stack.',
    });
    const distribution = this.distribution.node.defaultChild as cloudfront.CfnDistribution;
    Validations.of(distribution).acknowledge({
      id: 'AwsSolutions::AwsSolutions-CFR1',
      reason:
        'The dashboard serves the platform\'s customers wherever they are; the platform has no country restriction to enforce. It serves a static app: the data lives behind the Cognito-protected control API.',
    });
    Validations.of(distribution).acknowledge({
      id: 'AwsSolutions::AwsSolutions-CFR2',
      reason:
        'No WAF web ACL: the distribution serves only the static, public build of the app from S3 through OAC (GET/HEAD, no forms, no origin compute), and CloudFront has AWS Shield Standard. The API the app calls is a separate, authenticated and throttled origin.',
    });
    Validations.of(distribution).acknowledge({
      id: 'AwsSolutions::AwsSolutions-CFR4',
      reason:
        'The dashboard is served on its *.cloudfront.net name (the Cognito callback URL), whose default certificate cannot set a minimum TLS version. Browsers negotiate TLS 1.2/1.3 with CloudFront anyway; a custom domain with an ACM certificate (TLSv1.2_2021) is a deployment option for later.',
    });

    // ---- BucketDeployment (CDK's provider function and its role) ----
    const deploymentRole = this.deploymentRole;
    const deploymentReason = (what: string) =>
      `Added by CDK's BucketDeployment to the role of its provider function: ${what}. The role is used by that function only, during deployments.`;
    const deploymentFindings: Record<string, string> = {
      'Action::s3:GetBucket*': deploymentReason('read the CDK asset bucket holding the zipped app (s3:GetBucket* on that bucket)'),
      'Action::s3:GetObject*': deploymentReason('read the app\'s asset zip and the dashboard bucket\'s objects (s3:GetObject*)'),
      'Action::s3:List*': deploymentReason('list the asset bucket and the dashboard bucket to sync and prune (s3:List*)'),
      'Action::s3:Abort*': deploymentReason('abort failed multipart uploads to the dashboard bucket (s3:Abort*)'),
      'Action::s3:DeleteObject*': deploymentReason('delete files of the previous build from the dashboard bucket (prune) and all of them when the deployment is removed (s3:DeleteObject*)'),
      'Resource::*': deploymentReason('cloudfront:CreateInvalidation and cloudfront:GetInvalidation, which CDK grants on "*", to invalidate the dashboard distribution after each deployment'),
      [`Resource::${nagArn(stack, this.siteBucket.arnForObjects('*'))}`]: deploymentReason('write every object of the dashboard bucket, which holds nothing but this deployment\'s files'),
      [`Resource::arn:${stack.partition}:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-${stack.region}/*`]: deploymentReason('read the app\'s zip from the CDK bootstrap asset bucket, whose object keys are content hashes'),
    };
    for (const [finding, reason] of Object.entries(deploymentFindings)) {
      Validations.of(deploymentRole).acknowledge({ id: `AwsSolutions::AwsSolutions-IAM5[${finding}]`, reason });
    }
    const provider = stack.node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
    const providerFunction = provider?.node.defaultChild;
    if (providerFunction) {
      Validations.of(providerFunction).acknowledge({
        id: 'AwsSolutions::AwsSolutions-L1',
        reason:
          'The runtime of BucketDeployment\'s provider function is chosen by aws-cdk-lib (Python, with the AWS CLI layer) and moves with aws-cdk-lib upgrades; it runs only during deployments, never on a request path.',
      });
    }
  }
}

/**
 * An ARN as cdk-nag writes it in a finding id (IAM5 `Resource::`): unresolved pseudo parameters
 * as `<AWS::Name>`, references within the stack as `<LogicalId.Attribute>` / `<LogicalId>`, any
 * other intrinsic as its JSON.
 */
export function nagArn(stack: Stack, arn: string): string {
  const render = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string') return `<${v.Ref}>`;
    const getAtt = v['Fn::GetAtt'] as [string, string] | undefined;
    if (getAtt) return `<${getAtt[0]}.${getAtt[1]}>`;
    const join = v['Fn::Join'] as [string, unknown[]] | undefined;
    if (join) return join[1].map(render).join(join[0]);
    // Anything else (e.g. a weak cross-stack reference, Fn::GetStackOutput) as JSON, as cdk-nag writes it.
    return JSON.stringify(value);
  };
  return render(stack.resolve(arn));
}
