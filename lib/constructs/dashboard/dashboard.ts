import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { notify, thresholdAlarm } from '../shared/alarms.js';
import { output } from '../shared/outputs.js';
import type { PlatformFunction } from '../shared/platform-function.js';
import { acknowledgeControlApiNagFindings, addControlRoutes, createControlRestApi } from './control-api.js';
import { type ControlFunctionProps, createControlFunction } from './control-function.js';
import { createHosting, dashboardAppSource, deployDashboardApp } from './hosting.js';
import { createSignIn, DASHBOARD_SCOPES } from './sign-in.js';

/** The stack outputs of the dashboard (fixed logical ids). */
export const DASHBOARD_OUTPUTS = {
  dashboardUrl: 'DashboardUrl',
  controlApiUrl: 'ControlApiUrl',
  userPoolId: 'UserPoolId',
  userPoolClientId: 'UserPoolClientId',
  managedLoginUrl: 'ManagedLoginUrl',
} as const;

export type DashboardProps = Omit<ControlFunctionProps, 'dashboardOrigin'>;

/**
 * The owners' dashboard (stateless part): hosting, sign-in and the control API, each created in
 * this construct's scope. The site bucket is here, not in the stateful stack: its OAC policy names
 * the distribution, whose CSP names the control API; it holds only build output.
 */
export class Dashboard extends Construct {
  readonly siteBucket: s3.Bucket;
  readonly logBucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly responseHeadersPolicy: cloudfront.ResponseHeadersPolicy;
  readonly userPoolClient: cognito.UserPoolClient;
  readonly api: apigw.RestApi;
  readonly authorizer: apigw.CognitoUserPoolsAuthorizer;
  readonly controlFunction: PlatformFunction;
  /** The control API's base URL, without a trailing slash. */
  readonly controlApiUrl: string;
  /** `https://<prefix>.auth.<region>.amazoncognito.com`: managed login and the OAuth endpoints. */
  readonly cognitoDomainUrl: string;
  /** The role of BucketDeployment's provider function. */
  readonly deploymentRole: iam.Role;

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    const { data } = props;

    // The control API comes first, without methods: CORS and the CSP need each other's origin.
    const controlApi = createControlRestApi(this);
    this.api = controlApi.api;
    this.controlApiUrl = controlApi.url;
    this.cognitoDomainUrl = data.userPoolDomain.baseUrl();

    const hosting = createHosting(this, {
      controlApiOrigin: controlApi.origin,
      cognitoDomainUrl: this.cognitoDomainUrl,
      // The S3 client signs virtual-hosted, regional URLs.
      siteUploadOrigin: `https://${props.projects.siteBucket.bucketRegionalDomainName}`,
    });
    this.logBucket = hosting.logBucket;
    this.siteBucket = hosting.siteBucket;
    this.responseHeadersPolicy = hosting.responseHeadersPolicy;
    this.distribution = hosting.distribution;
    const { dashboardOrigin } = hosting;
    const dashboardRoot = `${dashboardOrigin}/`;
    this.userPoolClient = createSignIn(this, { userPool: data.userPool, dashboardRoot }).userPoolClient;

    this.controlFunction = createControlFunction(this, { ...props, dashboardOrigin });
    const routes = { api: this.api, handler: this.controlFunction, userPool: data.userPool, dashboardOrigin };
    this.authorizer = addControlRoutes(this, routes);

    const app = deployDashboardApp(this, {
      hosting,
      appSource: dashboardAppSource(),
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
    this.deploymentRole = app.deploymentRole;

    const serverErrors = thresholdAlarm(
      this,
      'ServerErrorAlarm',
      'The dashboard\'s control API answered 5XX (handler errors, timeouts, or AWS calls it makes failing): owners see "Service Unavailable". Read the control function\'s logs and X-Ray traces.',
      this.api.metricServerError({ period: Duration.minutes(5), statistic: cloudwatch.Stats.SUM }),
      5,
    );
    notify(props.alarmTopic, serverErrors);

    const o = DASHBOARD_OUTPUTS;
    output(this, o.dashboardUrl, dashboardRoot, 'The owners\' dashboard (CloudFront)');
    output(this, o.controlApiUrl, this.controlApiUrl, 'Base URL of the control API (Cognito ID tokens; stage v1)');
    output(this, o.userPoolId, data.userPool.userPoolId, 'The owners\' user pool');
    output(this, o.userPoolClientId, this.userPoolClient.userPoolClientId, 'App client of the dashboard (public, authorization code with PKCE)');
    output(this, o.managedLoginUrl, this.cognitoDomainUrl, 'Cognito managed login domain (sign-up, sign-in, MFA set-up; OAuth endpoints)');

    acknowledgeControlApiNagFindings(this.api);
  }
}
