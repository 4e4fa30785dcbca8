import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type PlatformApp } from '../../../../lib/app.js';
import { validateConfig } from '../../../../lib/config/index.js';
import { CONTROL_GATEWAY_RESPONSES } from '../../../../contracts/control-gateway-responses.js';
import { CONTROL_CORS_HEADERS, CONTROL_CORS_METHODS, CONTROL_STAGE_NAME } from '../../../../lib/constructs/dashboard/control-api.js';
import { DASHBOARD_OUTPUTS, type Dashboard } from '../../../../lib/constructs/dashboard/dashboard.js';
import { DASHBOARD_CACHE_CONTROL } from '../../../../lib/constructs/dashboard/hosting.js';
import { DashboardData, defaultDomainPrefix } from '../../../../lib/constructs/dashboard/dashboard-data.js';
import { CONTROL_API_HANDLER, CONTROL_ENV, OWNERS_TABLE_KEYS } from '../../../../contracts/control-api.js';
import { WEBHOOK_ENV } from '../../../../contracts/webhooks.js';
import { ENV } from '../../../../contracts/messages.js';
import { gatewayProblemBody } from '../../../../contracts/gateway-responses.js';
import { DASHBOARD_DATA_OUTPUTS } from '../../../../lib/stacks/dashboard-stack.js';
import { cdkJsonContext, SKIP_BUNDLING } from '../../support/cdk-app.js';

/** CloudFormation JSON as the assertions library types it. */
type Json = ReturnType<Template['toJSON']>;

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The one element of a list (fails the test otherwise). */
function only<T>(items: readonly T[]): T {
  expect(items).toHaveLength(1);
  return items[0] as T;
}

describe('the dashboard stacks (DashboardData, Dashboard) of the app', () => {
  let platform: PlatformApp;
  let stack: Stack;
  let dataStack: Stack;
  let dashboard: Dashboard;
  let template: Template;
  let dataTemplate: Template;
  let resources: Record<string, Json>;
  let assemblyDir: string;

  /** A token as CloudFormation sees it in the Dashboard stack (cross-stack references resolved). */
  const inStack = (token: string): unknown => stack.resolve(token);
  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnResource);
  const distributionDomain = () => ({ 'Fn::GetAtt': [idOf(dashboard.distribution), 'DomainName'] });
  const dashboardOrigin = () => ({ 'Fn::Join': ['', ['https://', distributionDomain()]] });
  const gatewayResponse = (type: string) =>
    only(Object.values(template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: type } })) as Json[]);

  beforeAll(() => {
    // Real handler entry, no bundling (esbuild, Vite): these tests read templates, not code.
    platform = buildApp({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING }, nag: false });
    stack = platform.dashboardStack;
    dataStack = platform.dashboardDataStack;
    dashboard = platform.dashboardStack.dashboard;
    assemblyDir = platform.app.synth().directory;
    template = Template.fromStack(stack);
    dataTemplate = Template.fromStack(dataStack);
    resources = template.toJSON().Resources;
  });

  it('puts the stateful resources in DashboardData and the rest in Dashboard, which depends on the other stacks', () => {
    expect(Object.keys(dataTemplate.findResources('AWS::Cognito::UserPool'))).toHaveLength(1);
    dataTemplate.resourceCountIs('AWS::Cognito::UserPoolDomain', 1);
    dataTemplate.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.resourceCountIs('AWS::Cognito::UserPool', 0);
    template.resourceCountIs('AWS::DynamoDB::Table', 0);
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.resourceCountIs('AWS::CloudFront::Distribution', 1);
    const others = [platform.dataStack, platform.apiStack, platform.domainsDataStack, platform.domainsStack, dataStack];
    for (const other of others) {
      expect(stack.dependencies, other.stackName).toContain(other);
    }
    expect(dataStack.dependencies).toEqual([]);
  });

  describe('DashboardData', () => {
    it('has a user pool with self sign-up by email, verified emails, strong passwords and optional TOTP, retained', () => {
      const pools = dataTemplate.findResources('AWS::Cognito::UserPool');
      const pool = only(Object.values(pools) as Json[]);
      expect(pool.DeletionPolicy).toBe('Retain');
      expect(pool.UpdateReplacePolicy).toBe('Retain');
      expect(pool.Properties).toMatchObject({
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
        UsernameAttributes: ['email'],
        AutoVerifiedAttributes: ['email'],
        UsernameConfiguration: { CaseSensitive: false },
        UserAttributeUpdateSettings: { AttributesRequireVerificationBeforeUpdate: ['email'] },
        MfaConfiguration: 'OPTIONAL',
        EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
        DeletionProtection: 'ACTIVE',
        UserPoolTier: 'ESSENTIALS',
        AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
        Policies: {
          PasswordPolicy: {
            MinimumLength: 12,
            RequireLowercase: true,
            RequireUppercase: true,
            RequireNumbers: true,
            RequireSymbols: true,
            TemporaryPasswordValidityDays: 3,
          },
        },
      });
      expect(pool.Properties.Schema).toContainEqual(expect.objectContaining({ Name: 'email', Required: true, Mutable: true }));
    });

    it('hosts the newer managed login on a prefix domain unique per stack and account', () => {
      dataTemplate.hasResourceProperties('AWS::Cognito::UserPoolDomain', {
        ManagedLoginVersion: 2,
        Domain: { 'Fn::Join': ['-', ['messagesplatform-dashboarddata', { Ref: 'AWS::AccountId' }]] },
      });
    });

    it('has the Owners table keyed by ownerId, on demand, with PITR and KMS, retained with deletion protection', () => {
      const table = only(Object.values(dataTemplate.findResources('AWS::DynamoDB::Table')) as Json[]);
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.Properties).toEqual({
        KeySchema: [{ AttributeName: OWNERS_TABLE_KEYS.partitionKey, KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: OWNERS_TABLE_KEYS.partitionKey, AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
        // The environment's tags (lib/app.ts tags every taggable resource).
        Tags: [
          { Key: 'Application', Value: 'MessagesPlatform' },
          { Key: 'Environment', Value: 'MessagesPlatform' },
        ],
      });
    });

    it('takes the domain prefix from the dashboardDomainPrefix context', () => {
      const { dashboardDataStack } = buildApp({
        context: { ...cdkJsonContext(), ...SKIP_BUNDLING, dashboardDomainPrefix: 'owners-login' },
        nag: false,
      });
      Template.fromStack(dashboardDataStack).hasResourceProperties('AWS::Cognito::UserPoolDomain', { Domain: 'owners-login' });
    });

    it('outputs the Owners table name', () => {
      expect(Object.keys(dataTemplate.toJSON().Outputs).filter((o) => !o.startsWith('PublishOutput'))).toEqual([
        DASHBOARD_DATA_OUTPUTS.ownersTableName,
      ]);
    });

    it('refuses a domain prefix Cognito would refuse, and derives a valid one from any stack name', () => {
      const app = new App();
      expect(() => new DashboardData(new Stack(app, 'A'), 'D', { domainPrefix: 'my-aws-dashboard' })).toThrow(/domainPrefix/);
      expect(() => new DashboardData(new Stack(app, 'B'), 'D', { domainPrefix: 'Upper' })).toThrow(/domainPrefix/);
      expect(() => new DashboardData(new Stack(app, 'C'), 'D', { domainPrefix: 'owners-login' })).not.toThrow();
      const probe = new Stack(app, 'Probe');
      const inStackOf = (prefix: string) => probe.resolve(prefix);
      expect(inStackOf(defaultDomainPrefix('AmazonShop-AWS_Cognito-DashboardData'))).toEqual({
        'Fn::Join': ['-', ['shop-dashboarddata', { Ref: 'AWS::AccountId' }]],
      });
      expect(inStackOf(defaultDomainPrefix('Cognito'))).toEqual({ 'Fn::Join': ['-', ['dashboard', { Ref: 'AWS::AccountId' }]] });
    });
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

  describe('control function', () => {
    const fnProps = () => resources[idOf(dashboard.controlFunction.function)]?.Properties as Json;

    it('runs the control handler (Node.js 22, arm64, X-Ray) with 29 s, under API Gateway\'s integration timeout', () => {
      expect(fnProps()).toMatchObject({
        Handler: `index.${CONTROL_API_HANDLER.handler}`,
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        Timeout: 29,
        MemorySize: 1024,
      });
    });

    it('gets exactly the CONTROL_ENV environment, the validated config among it', () => {
      const env = fnProps().Environment.Variables as Record<string, unknown>;
      expect(Object.keys(env).sort()).toEqual(
        [
          ...Object.values(CONTROL_ENV),
          // Owners' webhooks and message log (Webhooks.connectControl).
          ...Object.values(WEBHOOK_ENV),
          ENV.messagesTable,
          'POWERTOOLS_SERVICE_NAME',
          'POWERTOOLS_METRICS_NAMESPACE',
          'NODE_OPTIONS',
        ].sort(),
      );
      // Without the deploy-time sections; validation (as the handler does) gives back the same config.
      const runtime = JSON.parse(env[CONTROL_ENV.platformConfig] as string) as Record<string, unknown>;
      expect(Object.keys(runtime)).not.toContain('protection');
      expect(Object.keys(runtime)).not.toContain('alarms');
      expect(validateConfig(runtime)).toEqual({ ...platform.config, alarms: {} });
      const messages = platform.apiStack.messages;
      const { tables } = platform.dataStack.messages;
      const projects = platform.domainsDataStack.projects;
      expect(env).toMatchObject({
        [CONTROL_ENV.apiKeysTable]: inStack(tables.apiKeys.tableName),
        [CONTROL_ENV.accountsTable]: inStack(tables.accounts.tableName),
        [CONTROL_ENV.rateLimitsTable]: inStack(tables.rateLimits.tableName),
        [CONTROL_ENV.ownersTable]: inStack(platform.dashboardDataStack.dashboard.ownersTable.tableName),
        [CONTROL_ENV.restApiId]: inStack(messages.usagePlanTargets.restApiId),
        [CONTROL_ENV.stageName]: inStack(messages.usagePlanTargets.stageName),
        [CONTROL_ENV.projectsTable]: inStack(projects.tables.projects.tableName),
        [CONTROL_ENV.domainsTable]: inStack(projects.tables.domains.tableName),
        [CONTROL_ENV.siteBucket]: inStack(projects.siteBucket.bucketName),
        [CONTROL_ENV.keyValueStoreArn]: inStack(projects.keyValueStore.keyValueStoreArn),
        [CONTROL_ENV.platformHost]: `edge.${platform.config.platform.domain}`,
        [CONTROL_ENV.domainFlowArn]: inStack(platform.domainsStack.flow.stateMachine.stateMachineArn),
        [CONTROL_ENV.dashboardOrigin]: dashboardOrigin(),
      });
      expect(env[CONTROL_ENV.usagePlanIds]).toEqual(
        inStack(stack.toJsonString({
          free: messages.usagePlanTargets.standardPlanIds.free,
          pro: messages.usagePlanTargets.standardPlanIds.pro,
          business: messages.usagePlanTargets.standardPlanIds.business,
        })),
      );
    });

    it('stays well under Lambda\'s 4 KB environment limit once references resolve', () => {
      // Deployed values of references: generated table and bucket names, ARNs and ids are at most
      // ~100 characters (a state machine ARN with its generated name); URLSuffix is amazonaws.com.
      const deployedLength = (value: unknown): number => {
        if (typeof value === 'string') return value.length;
        const v = value as Record<string, unknown>;
        if (v.Ref === 'AWS::URLSuffix') return 'amazonaws.com'.length;
        const join = v['Fn::Join'] as [string, unknown[]] | undefined;
        if (join) return join[1].reduce<number>((n, part) => n + deployedLength(part), 0);
        return 100;
      };
      const env = fnProps().Environment.Variables as Record<string, unknown>;
      const size = Object.entries(env).reduce((total, [key, value]) => total + key.length + deployedLength(value), 0);
      // About 2.4 KB with real names and ids; this pessimistic estimate keeps 512 bytes spare.
      expect(size).toBeLessThan(4096 - 512);
    });

    it('may do exactly what the handler\'s adapters call, on exactly those resources', () => {
      const roleId = idOf(dashboard.controlFunction.role);
      const statements = (Object.values(template.findResources('AWS::IAM::Policy')) as Json[])
        .filter((p) => (p.Properties.Roles as Json[]).some((r) => r.Ref === roleId))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
      expect(statements.every((s) => s.Effect === 'Allow')).toBe(true);
      const granted = statements
        .flatMap((s) => list(s.Action).flatMap((a) => list(s.Resource).map((r) => `${a} ${JSON.stringify(r)}`)))
        .sort();

      const { tables } = platform.dataStack.messages;
      const projects = platform.domainsDataStack.projects;
      const owners = platform.dashboardDataStack.dashboard.ownersTable;
      const r = (token: string) => JSON.stringify(inStack(token));
      const apigw = (path: string) => JSON.stringify(`arn:aws:apigateway:${stack.region}::${path}`);
      const pairs = (actions: string[], resource: string) => actions.map((a) => `${a} ${resource}`);
      const expected = [
        ...pairs(['logs:CreateLogStream', 'logs:PutLogEvents'], r(dashboard.controlFunction.logGroup.logGroupArn)),
        ...pairs(['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], '"*"'),
        // Keys, plan and usage.
        ...pairs(['dynamodb:GetItem', 'dynamodb:PutItem'], r(owners.tableArn)),
        // UpdateItem: an owner's upgrade request (only while the plan is unchanged).
        ...pairs(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], r(tables.accounts.tableArn)),
        ...pairs(['dynamodb:PutItem', 'dynamodb:UpdateItem'], r(tables.apiKeys.tableArn)),
        `dynamodb:Query ${r(`${tables.apiKeys.tableArn}/index/byAccount`)}`,
        ...pairs(['dynamodb:GetItem', 'dynamodb:UpdateItem'], r(tables.rateLimits.tableArn)),
        `apigateway:POST ${apigw('/apikeys')}`,
        `apigateway:PUT ${apigw('/tags/*')}`,
        `apigateway:DELETE ${apigw('/apikeys/*')}`,
        `apigateway:POST ${apigw('/usageplans/*/keys')}`,
        `apigateway:GET ${apigw('/usageplans/*/keys/*')}`,
        // Projects and deploys.
        ...pairs(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'], r(projects.tables.projects.tableArn)),
        `dynamodb:Query ${r(`${projects.tables.projects.tableArn}/index/byAccount`)}`,
        // Presigned uploads (content), publish copies (deploys), manifests: PutObject on those prefixes only.
        ...['content', 'deploys', 'manifests'].map((part) => `s3:PutObject ${r(projects.siteBucket.arnForObjects(`projects/*/${part}/*`))}`),
        ...pairs(['s3:GetObject', 's3:DeleteObject'], r(projects.siteBucket.arnForObjects('projects/*'))),
        `s3:ListBucket ${r(projects.siteBucket.bucketArn)}`,
        ...pairs(
          ['cloudfront-keyvaluestore:DescribeKeyValueStore', 'cloudfront-keyvaluestore:PutKey'],
          r(projects.keyValueStore.keyValueStoreArn),
        ),
        // Custom domains.
        ...pairs(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], r(projects.tables.domains.tableArn)),
        `dynamodb:Query ${r(`${projects.tables.domains.tableArn}/index/byProject`)}`,
        // Verify, and the release of a removed domain's tenant: both executions of the domain flow.
        `states:StartExecution ${r(platform.domainsStack.flow.stateMachine.stateMachineArn)}`,
        // Upgrade requests, published to the operations (alarm) topic, encrypted with its key.
        `sns:Publish ${r(platform.operationsStack.alarms.topic.topicArn)}`,
        ...pairs(['kms:Decrypt', 'kms:GenerateDataKey'], r(platform.operationsStack.alarms.key.keyArn)),
        // Owners' message log (Webhooks.connectControl): a message, and one Query per page on the account index.
        `dynamodb:GetItem ${r(tables.messages.tableArn)}`,
        `dynamodb:Query ${r(`${tables.messages.tableArn}/index/byAccount`)}`,
        // Webhook endpoints, deliveries and their log; a test event or a re-sent delivery goes on the delivery queue.
        ...pairs(
          ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Query'],
          r(platform.dataStack.webhooks.table.tableArn),
        ),
        `sqs:SendMessage ${r(platform.dataStack.webhooks.deliveryQueue.queueArn)}`,
      ].sort();
      expect(granted).toEqual(expected);
      // Listing the site bucket only under projects/ (stored contents, pruning, a project's delete).
      const listing = statements.find((s) => list(s.Action).includes('s3:ListBucket'));
      expect(listing?.Condition).toEqual({ StringLike: { 's3:prefix': ['projects/*'] } });
      // Removal hands the tenant to the flow: no CloudFront tenant or ACM action here.
      expect(granted.filter((g) => /^(cloudfront|acm):/.test(g))).toEqual([]);
      expect(resources[roleId]?.Properties.ManagedPolicyArns).toBeUndefined();
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
