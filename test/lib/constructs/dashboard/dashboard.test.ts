import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PlatformApp } from '../../../../lib/app.js';
import { CONTROL_GATEWAY_RESPONSES } from '../../../../contracts/control-gateway-responses.js';
import { CONTROL_CORS_HEADERS, CONTROL_CORS_METHODS, CONTROL_STAGE_NAME } from '../../../../lib/constructs/dashboard/control-api.js';
import { DASHBOARD_OUTPUTS, type Dashboard } from '../../../../lib/constructs/dashboard/dashboard.js';
import { DASHBOARD_CACHE_CONTROL } from '../../../../lib/constructs/dashboard/hosting.js';
import { gatewayProblemBody } from '../../../../contracts/gateway-responses.js';
import { dashboardStacksOfTheApp, type DashboardStacksOfTheApp, type Json, only } from './dashboard.fixture.js';

// The dashboard stacks of the app: the Dashboard stack's control API, hosting, sign-in and outputs.
// DashboardData is in dashboard-data.test.ts, the control function in control-function.test.ts.

describe('the dashboard stacks (DashboardData, Dashboard) of the app', () => {
  let platform: PlatformApp;
  let stack: Stack;
  let dashboard: Dashboard;
  let template: Template;
  let resources: Record<string, Json>;
  let assemblyDir: string;
  let inStack: DashboardStacksOfTheApp['inStack'];
  let idOf: DashboardStacksOfTheApp['idOf'];
  let distributionDomain: DashboardStacksOfTheApp['distributionDomain'];
  let gatewayResponse: DashboardStacksOfTheApp['gatewayResponse'];

  beforeAll(() => {
    ({
      platform,
      stack,
      dashboard,
      template,
      resources,
      assemblyDir,
      inStack,
      idOf,
      distributionDomain,
      gatewayResponse,
    } = dashboardStacksOfTheApp());
  });

  describe('control API', () => {
    it('sends every method of the root and {proxy+} (ANY) to the control function behind the Cognito authorizer', () => {
      const methods = template.findResources('AWS::ApiGateway::Method', { Properties: { HttpMethod: 'ANY' } });
      expect(Object.keys(methods)).toHaveLength(2);
      const fn = idOf(dashboard.controlFunction.function);
      for (const method of Object.values(methods) as Json[]) {
        expect(method.Properties.AuthorizationType).toBe('COGNITO_USER_POOLS');
        expect(method.Properties.AuthorizerId).toEqual({ Ref: idOf(dashboard.authorizer as never) });
        expect(method.Properties.Integration).toMatchObject({ Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' });
        expect(JSON.stringify(method.Properties.Integration.Uri)).toContain(fn);
      }
      template.resourceCountIs('AWS::ApiGateway::Method', 4);
    });

    it('checks ID tokens of the owners\' user pool in the Authorization header', () => {
      const pool = platform.dashboardDataStack.dashboard.userPool;
      template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
        Type: 'COGNITO_USER_POOLS',
        IdentitySource: 'method.request.header.Authorization',
        ProviderARNs: [inStack(pool.userPoolArn)],
        AuthorizerResultTtlInSeconds: 300,
      });
      // No authorization scopes on the methods: API Gateway then expects ID tokens.
      for (const method of Object.values(template.findResources('AWS::ApiGateway::Method')) as Json[]) {
        expect(method.Properties.AuthorizationScopes).toBeUndefined();
      }
    });

    it('answers preflights (OPTIONS) without auth, for the dashboard\'s origin only', () => {
      const preflights = Object.values(template.findResources('AWS::ApiGateway::Method', { Properties: { HttpMethod: 'OPTIONS' } })) as Json[];
      expect(preflights).toHaveLength(2);
      for (const preflight of preflights) {
        expect(preflight.Properties.AuthorizationType).toBe('NONE');
        expect(preflight.Properties.AuthorizerId).toBeUndefined();
        const response = only(preflight.Properties.Integration.IntegrationResponses as Json[]);
        expect(response.StatusCode).toBe('204');
        expect(response.ResponseParameters).toEqual({
          'method.response.header.Access-Control-Allow-Origin': { 'Fn::Join': ['', ['\'https://', distributionDomain(), '\'']] },
          'method.response.header.Access-Control-Allow-Headers': `'${CONTROL_CORS_HEADERS.join(',')}'`,
          'method.response.header.Access-Control-Allow-Methods': `'${CONTROL_CORS_METHODS.join(',')}'`,
          'method.response.header.Access-Control-Expose-Headers': '\'X-Request-Id,Allow,Retry-After\'',
          'method.response.header.Access-Control-Max-Age': '\'3600\'',
          'method.response.header.Vary': '\'Origin\'',
        });
      }
    });

    it('answers its own errors as problems carrying the dashboard\'s origin (so the app can read a 401)', () => {
      const responses = template.findResources('AWS::ApiGateway::GatewayResponse');
      expect(Object.values(responses).map((r) => r.Properties.ResponseType).sort()).toEqual(
        CONTROL_GATEWAY_RESPONSES.map((d) => d.type).sort(),
      );
      for (const def of CONTROL_GATEWAY_RESPONSES) {
        const response = gatewayResponse(def.type);
        expect(response.Properties.StatusCode, def.type).toBe(String(def.statusCode));
        expect(response.Properties.ResponseParameters['gatewayresponse.header.Access-Control-Allow-Origin'], def.type).toEqual({
          'Fn::Join': ['', ['\'https://', distributionDomain(), '\'']],
        });
        expect(response.Properties.ResponseParameters['gatewayresponse.header.Content-Type'], def.type).toBe('\'application/problem+json\'');
        expect(response.Properties.ResponseTemplates['application/json'], def.type).toBe(gatewayProblemBody(def, '$context.requestId'));
      }
      const unauthorized = gatewayResponse('UNAUTHORIZED');
      expect(unauthorized.Properties.ResponseParameters['gatewayresponse.header.WWW-Authenticate']).toBe('\'Bearer\'');
    });

    it('deploys stage v1 with JSON access logs, X-Ray, error logging without data trace, and throttling', () => {
      const stage = only(Object.values(template.findResources('AWS::ApiGateway::Stage')) as Json[]);
      expect(stage.Properties.StageName).toBe(CONTROL_STAGE_NAME);
      expect(stage.Properties.TracingEnabled).toBe(true);
      expect(stage.Properties.MethodSettings).toEqual([
        {
          HttpMethod: '*',
          ResourcePath: '/*',
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          MetricsEnabled: false,
          ThrottlingRateLimit: 50,
          ThrottlingBurstLimit: 100,
        },
      ]);
      const format = JSON.parse(stage.Properties.AccessLogSetting.Format as string) as Record<string, string>;
      expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status', sub: '$context.authorizer.claims.sub' });
      expect(JSON.stringify(format)).not.toMatch(/Authorization|token/i);
      // The account-level CloudWatch role is the Messages API's.
      template.resourceCountIs('AWS::ApiGateway::Account', 0);
    });

    it('alarms on 5XX answers of the API', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/ApiGateway',
        MetricName: '5XXError',
        Dimensions: [{ Name: 'ApiName', Value: `${stack.stackName}-control` }],
        Statistic: 'Sum',
        Period: 300,
        Threshold: 5,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
    });
  });

  describe('hosting', () => {
    it('keeps the site bucket private: no public access, SSE-S3, TLS only, access logs', () => {
      const site = resources[idOf(dashboard.siteBucket)]?.Properties as Json;
      expect(site).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        LoggingConfiguration: { DestinationBucketName: { Ref: idOf(dashboard.logBucket) }, LogFilePrefix: 'site/' },
      });
      expect(site.WebsiteConfiguration).toBeUndefined();
    });

    it('lets only this distribution read the site (OAC, SigV4 always) and refuses plain HTTP', () => {
      template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
        OriginAccessControlConfig: { OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' },
      });
      const policies = Object.values(template.findResources('AWS::S3::BucketPolicy', {
        Properties: { Bucket: { Ref: idOf(dashboard.siteBucket) } },
      })) as Json[];
      expect(policies).toHaveLength(1);
      const statements = policies[0]?.Properties.PolicyDocument.Statement as Json[];
      expect(statements).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 's3:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
      const allows = statements.filter((s) => s.Effect === 'Allow');
      expect(allows).toEqual([
        {
          Effect: 'Allow',
          Principal: { Service: 'cloudfront.amazonaws.com' },
          Action: 's3:GetObject',
          Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [idOf(dashboard.siteBucket), 'Arn'] }, '/*']] },
          Condition: {
            StringEquals: {
              'AWS:SourceArn': {
                'Fn::Join': [
                  '',
                  ['arn:', { Ref: 'AWS::Partition' }, ':cloudfront::', { Ref: 'AWS::AccountId' }, ':distribution/', { Ref: idOf(dashboard.distribution) }],
                ],
              },
            },
          },
        },
      ]);
    });

    it('serves index.html over HTTPS only with the security headers, logs to the log bucket, and rewrites no errors (hash routing)', () => {
      const config = resources[idOf(dashboard.distribution)]?.Properties.DistributionConfig as Json;
      expect(config).toMatchObject({
        Enabled: true,
        DefaultRootObject: 'index.html',
        HttpVersion: 'http2and3',
        DefaultCacheBehavior: {
          ViewerProtocolPolicy: 'redirect-to-https',
          AllowedMethods: ['GET', 'HEAD'],
          Compress: true,
          ResponseHeadersPolicyId: { Ref: idOf(dashboard.responseHeadersPolicy) },
        },
        Logging: { Bucket: { 'Fn::GetAtt': [idOf(dashboard.logBucket), 'RegionalDomainName'] }, Prefix: 'cloudfront/' },
      });
      expect(config.Origins).toHaveLength(1);
      const oac = only(Object.keys(template.findResources('AWS::CloudFront::OriginAccessControl')));
      expect(config.Origins[0].OriginAccessControlId).toEqual({ 'Fn::GetAtt': [oac, 'Id'] });
      expect(config.Origins[0].DomainName).toEqual({ 'Fn::GetAtt': [idOf(dashboard.siteBucket), 'RegionalDomainName'] });
      expect(config.CustomErrorResponses).toBeUndefined();
    });

    it('sends a CSP that lets the app reach only the control API and the Cognito domain, and the other security headers', () => {
      const policy = resources[idOf(dashboard.responseHeadersPolicy)]?.Properties.ResponseHeadersPolicyConfig as Json;
      const security = policy.SecurityHeadersConfig as Json;
      expect(security.StrictTransportSecurity).toEqual({
        AccessControlMaxAgeSec: 730 * 24 * 3600,
        IncludeSubdomains: true,
        Override: true,
      });
      expect(security.ContentTypeOptions).toEqual({ Override: true });
      expect(security.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
      expect(security.ReferrerPolicy).toEqual({ ReferrerPolicy: 'no-referrer', Override: true });
      const csp = JSON.stringify(security.ContentSecurityPolicy.ContentSecurityPolicy);
      for (const directive of ['default-src \'self\';', 'script-src \'self\';', 'frame-ancestors \'none\';', 'object-src \'none\'']) {
        expect(csp).toContain(directive);
      }
      expect(csp).toContain('connect-src \'self\'');
      expect(csp).toContain(JSON.stringify({ Ref: idOf(dashboard.api) }));
      expect(csp).toContain(JSON.stringify(inStack(platform.dashboardDataStack.dashboard.userPoolDomain.domainName)));
      expect(csp).not.toContain('unsafe');
    });

    it('deploys the app and config.json (control API, Messages API, Cognito domain and client) and invalidates the distribution', () => {
      const props = only(Object.values(template.findResources('Custom::CDKBucketDeployment')) as Json[]).Properties as Json;
      expect(props).toMatchObject({
        DestinationBucketName: { Ref: idOf(dashboard.siteBucket) },
        Prune: true,
        RetainOnDelete: false,
        DistributionId: { Ref: idOf(dashboard.distribution) },
        DistributionPaths: ['/*'],
        SystemMetadata: { 'cache-control': DASHBOARD_CACHE_CONTROL },
      });
      expect(props.SourceObjectKeys).toHaveLength(2);

      // config.json as the app will read it: the staged file with its deploy-time markers filled in.
      const configKey = (props.SourceObjectKeys as string[])[1] as string;
      const staged = readFileSync(join(assemblyDir, `asset.${configKey.replace(/\.zip$/, '')}`, 'config.json'), 'utf8');
      const markers = (props.SourceMarkers as Json[])[1] as Record<string, unknown>;
      // Each marker becomes @@<its CloudFormation value as JSON>@@, escaped to stay a JSON string.
      const filled = staged.replace(/<<marker:0xbaba:\d+>>/g, (m) => JSON.stringify(`@@${JSON.stringify(markers[m])}@@`).slice(1, -1));
      const config = JSON.parse(filled) as Record<string, unknown>;
      const unmark = (value: string) => value.split('@@').filter((part) => part !== '').map((part) => (part.startsWith('{') ? JSON.parse(part) : part));
      expect(Object.keys(config).sort()).toEqual(['apiBaseUrl', 'auth', 'messagesApiUrl', 'platformDomain']);
      expect(config.platformDomain).toBe(platform.config.platform.domain);
      expect(unmark(config.apiBaseUrl as string)).toEqual([inStack(dashboard.controlApiUrl)]);
      expect(inStack(dashboard.controlApiUrl)).toEqual({
        'Fn::Join': ['', ['https://', { Ref: idOf(dashboard.api) }, `.execute-api.${stack.region}.`, { Ref: 'AWS::URLSuffix' }, `/${CONTROL_STAGE_NAME}`]],
      });
      expect(JSON.stringify(unmark(config.messagesApiUrl as string))).toContain(
        JSON.stringify(inStack(platform.apiStack.messages.usagePlanTargets.restApiId)),
      );
      const auth = config.auth as Record<string, unknown>;
      expect(auth.kind).toBe('cognito');
      expect(auth.scopes).toEqual(['openid', 'email', 'profile']);
      expect(unmark(auth.clientId as string)).toEqual([{ Ref: idOf(dashboard.userPoolClient) }]);
      expect(unmark(auth.domain as string)).toEqual([
        'https://',
        inStack(platform.dashboardDataStack.dashboard.userPoolDomain.domainName),
        `.auth.${stack.region}.amazoncognito.com`,
      ]);
    });

    it('runs the deployment with its own role, logging to its own log group only', () => {
      const fns = Object.values(template.findResources('AWS::Lambda::Function')) as Json[];
      const provider = fns.find((f) => f.Properties.Handler === 'index.handler' && f.Properties.Runtime?.startsWith('python'));
      expect(provider?.Properties.Role).toEqual({ 'Fn::GetAtt': [idOf(dashboard.deploymentRole), 'Arn'] });
      expect(resources[idOf(dashboard.deploymentRole)]?.Properties.ManagedPolicyArns).toBeUndefined();
    });
  });

  describe('sign-in', () => {
    it('has a public app client: authorization code (PKCE) only, the dashboard root as callback and logout URL, 1 h ID tokens', () => {
      const client = resources[idOf(dashboard.userPoolClient)]?.Properties as Json;
      const root = { 'Fn::Join': ['', ['https://', distributionDomain(), '/']] };
      expect(client).toMatchObject({
        UserPoolId: inStack(platform.dashboardDataStack.dashboard.userPool.userPoolId),
        GenerateSecret: false,
        AllowedOAuthFlowsUserPoolClient: true,
        AllowedOAuthFlows: ['code'],
        AllowedOAuthScopes: ['openid', 'email', 'profile'],
        CallbackURLs: [root],
        LogoutURLs: [root],
        SupportedIdentityProviders: ['COGNITO'],
        PreventUserExistenceErrors: 'ENABLED',
        IdTokenValidity: 60,
        AccessTokenValidity: 60,
        RefreshTokenValidity: 1440,
        TokenValidityUnits: { IdToken: 'minutes', AccessToken: 'minutes', RefreshToken: 'minutes' },
        EnableTokenRevocation: true,
      });
      expect(client.AllowedOAuthFlows).not.toContain('implicit');
    });

    it('brands managed login for the client with Cognito\'s own look', () => {
      template.hasResourceProperties('AWS::Cognito::ManagedLoginBranding', {
        UserPoolId: inStack(platform.dashboardDataStack.dashboard.userPool.userPoolId),
        ClientId: { Ref: idOf(dashboard.userPoolClient) },
        UseCognitoProvidedValues: true,
      });
    });
  });

  it('outputs the dashboard URL, control API URL, user pool, client and managed login domain', () => {
    const outputs = template.toJSON().Outputs as Record<string, Json>;
    expect(Object.keys(outputs).filter((o) => !o.startsWith('PublishOutput')).sort()).toEqual(Object.values(DASHBOARD_OUTPUTS).sort());
    expect(outputs.DashboardUrl?.Value).toEqual({ 'Fn::Join': ['', ['https://', distributionDomain(), '/']] });
    expect(outputs.ControlApiUrl?.Value).toEqual(inStack(dashboard.controlApiUrl));
    expect(outputs.UserPoolId?.Value).toEqual(inStack(platform.dashboardDataStack.dashboard.userPool.userPoolId));
    expect(outputs.UserPoolClientId?.Value).toEqual({ Ref: idOf(dashboard.userPoolClient) });
    expect(outputs.ManagedLoginUrl?.Value).toEqual(inStack(dashboard.cognitoDomainUrl));
    for (const name of Object.values(DASHBOARD_OUTPUTS)) {
      expect((outputs[name]?.Description as string).length, name).toBeGreaterThan(10);
    }
  });
});
