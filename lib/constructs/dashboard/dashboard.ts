import { CfnOutput, Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { PlatformFunction } from '../shared/platform-function.js';
import { acknowledgeControlApiNagFindings, addControlRoutes, createControlRestApi } from './control-api.js';
import { type ControlFunctionProps, createControlFunction } from './control-function.js';
import { acknowledgeAppDeploymentNagFindings, createHosting, dashboardAppSource, deployDashboardApp } from './hosting.js';
import { createSignIn, DASHBOARD_SCOPES } from './sign-in.js';

/** The stack outputs of the dashboard (fixed logical ids). */
export const DASHBOARD_OUTPUTS = {
  dashboardUrl: 'DashboardUrl',
  controlApiUrl: 'ControlApiUrl',
  userPoolId: 'UserPoolId',
  userPoolClientId: 'UserPoolClientId',
  managedLoginUrl: 'ManagedLoginUrl',
} as const;

export interface DashboardProps extends Omit<ControlFunctionProps, 'dashboardOrigin'> {
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
 * The owners' dashboard on AWS (stateless part), composed of its parts, each created in this
 * construct's scope (so their logical ids do not depend on the split):
 *
 * - **Hosting** (hosting.ts): the private site bucket behind CloudFront with security headers and
 *   a CSP naming the control API and the Cognito domain; the app plus `config.json` deployed by a
 *   BucketDeployment.
 * - **Sign-in** (sign-in.ts): the user pool's app client and its managed login branding.
 * - **Control API** (control-api.ts, control-function.ts): a REST API whose every method needs a
 *   Cognito ID token and goes to the control API's handler, CORS for the dashboard's origin only,
 *   and a 5XX alarm.
 *
 * Why the site bucket is here and not in the stateful stack: the distribution's OAC bucket policy
 * names the distribution, and the distribution's CSP names the control API, so bucket,
 * distribution and API must share a stack (otherwise the two stacks reference each other). The
 * bucket holds only build output that every deployment replaces, so nothing is lost with it; its
 * objects are deleted with the deployment, and the bucket with the stack.
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

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    const { data } = props;

    // The control API comes first, without methods: CORS and the CSP need each other's origin.
    const controlApi = createControlRestApi(this, props);
    this.api = controlApi.api;
    this.controlApiUrl = controlApi.url;
    this.cognitoDomainUrl = data.userPoolDomain.baseUrl();

    const hosting = createHosting(this, {
      controlApiOrigin: controlApi.origin,
      cognitoDomainUrl: this.cognitoDomainUrl,
      // The S3 client signs virtual-hosted, regional URLs: https://<bucket>.s3.<region>.amazonaws.com/<key>.
      siteUploadOrigin: `https://${props.projects.siteBucket.bucketRegionalDomainName}`,
      hostingLogRetention: props.hostingLogRetention,
    });
    this.logBucket = hosting.logBucket;
    this.siteBucket = hosting.siteBucket;
    this.responseHeadersPolicy = hosting.responseHeadersPolicy;
    this.distribution = hosting.distribution;
    this.dashboardOrigin = hosting.dashboardOrigin;
    const dashboardRoot = `${this.dashboardOrigin}/`;

    const signIn = createSignIn(this, {
      userPool: data.userPool,
      dashboardRoot,
      idTokenValidity: props.idTokenValidity,
    });
    this.userPoolClient = signIn.userPoolClient;
    this.managedLoginBranding = signIn.managedLoginBranding;

    this.controlFunction = createControlFunction(this, { ...props, dashboardOrigin: this.dashboardOrigin });
    this.authorizer = addControlRoutes(this, {
      api: this.api,
      handler: this.controlFunction,
      userPool: data.userPool,
      dashboardOrigin: this.dashboardOrigin,
    });

    const app = deployDashboardApp(this, {
      hosting,
      appSource: props.appSource ?? dashboardAppSource(),
      appConfig: {
        apiBaseUrl: this.controlApiUrl,
        messagesApiUrl: props.messagesApiUrl,
        platformDomain: props.config.platform.domain,
        auth: {
          kind: 'cognito',
          domain: this.cognitoDomainUrl,
          clientId: this.userPoolClient.userPoolClientId,
          scopes: [...DASHBOARD_SCOPES],
        },
      },
    });
    this.deployment = app.deployment;
    this.deploymentRole = app.deploymentRole;

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

    const output = (name: string, value: string, description: string) => {
      const out = new CfnOutput(this, name, { value, description });
      out.overrideLogicalId(name);
      return out;
    };
    const o = DASHBOARD_OUTPUTS;
    this.outputs = {
      dashboardUrl: output(o.dashboardUrl, dashboardRoot, 'The owners\' dashboard (CloudFront)'),
      controlApiUrl: output(o.controlApiUrl, this.controlApiUrl, 'Base URL of the control API (Cognito ID tokens; stage v1)'),
      userPoolId: output(o.userPoolId, data.userPool.userPoolId, 'The owners\' user pool'),
      userPoolClientId: output(o.userPoolClientId, this.userPoolClient.userPoolClientId, 'App client of the dashboard (public, authorization code with PKCE)'),
      managedLoginUrl: output(o.managedLoginUrl, this.cognitoDomainUrl, 'Cognito managed login domain (sign-up, sign-in, MFA set-up; OAuth endpoints)'),
    };

    acknowledgeControlApiNagFindings(this.api);
    acknowledgeAppDeploymentNagFindings(this, hosting, this.deploymentRole);
  }
}
