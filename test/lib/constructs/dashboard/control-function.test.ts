import type { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PlatformApp } from '../../../../lib/app.js';
import { validateConfig } from '../../../../lib/config/index.js';
import type { Dashboard } from '../../../../lib/constructs/dashboard/dashboard.js';
import { CONTROL_API_HANDLER, CONTROL_ENV } from '../../../../contracts/control-api.js';
import { WEBHOOK_ENV } from '../../../../contracts/webhooks.js';
import { ENV } from '../../../../contracts/messages.js';
import { dashboardStacksOfTheApp, type DashboardStacksOfTheApp, type Json, list, type Statement } from './dashboard.fixture.js';

// The dashboard stacks of the app: the Dashboard stack's control function, its environment and its role.

describe('the dashboard stacks (DashboardData, Dashboard) of the app', () => {
  let platform: PlatformApp;
  let stack: Stack;
  let dashboard: Dashboard;
  let template: Template;
  let resources: Record<string, Json>;
  let inStack: DashboardStacksOfTheApp['inStack'];
  let idOf: DashboardStacksOfTheApp['idOf'];
  let dashboardOrigin: DashboardStacksOfTheApp['dashboardOrigin'];

  beforeAll(() => {
    ({ platform, stack, dashboard, template, resources, inStack, idOf, dashboardOrigin } = dashboardStacksOfTheApp());
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
});
