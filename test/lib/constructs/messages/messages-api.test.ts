import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type PlatformApp } from '../../../../lib/app.js';
import { loadConfig, PLAN_IDS, usageIdentifierBackstop, type PlatformConfig } from '../../../../lib/config/index.js';
import { GATEWAY_RESPONSES, gatewayProblemBody } from '../../../../contracts/gateway-responses.js';
import { MessagesApi } from '../../../../lib/constructs/messages/messages-api.js';
import { STAGE_NAME } from '../../../../lib/constructs/messages/messages-rest-api.js';
import { USAGE_IDENTIFIERS } from '../../../../lib/constructs/messages/usage-plan-backstop.js';
import { MessagesData } from '../../../../lib/constructs/messages/messages-data.js';
import { pooledUsageKeyValue } from '../../../../lib/constructs/messages/pooled-usage-keys.js';
import { ENV } from '../../../../contracts/messages.js';
import { WEBHOOK_ENV } from '../../../../contracts/webhooks.js';
import { REQUIRED_OUTPUT_KEYS } from '../../../../cli/deployed-stack.js';
import { OPERATOR_OUTPUTS, PLATFORM_CONFIG_OUTPUT } from '../../../../lib/stacks/api-stack-outputs.js';
import { cdkJsonContext, SKIP_BUNDLING } from '../../support/cdk-app.js';

/** CloudFormation JSON as the assertions library types it. */
type Json = ReturnType<Template['toJSON']>;

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

const actionsOf = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);

describe('MessagesApi (in the ApiStack of the app)', () => {
  let platform: PlatformApp;
  let config: PlatformConfig;
  let stack: Stack;
  let api: MessagesApi;
  let template: Template;
  let resources: Record<string, Json>;

  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnResource);
  const fnId = (name: keyof MessagesApi['functions']) => idOf(api.functions[name].function);
  const fnProps = (name: keyof MessagesApi['functions']) => resources[fnId(name)]?.Properties as Json;
  const statementsOf = (name: keyof MessagesApi['functions']): Statement[] => {
    const roleId = idOf(api.functions[name].role);
    const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
      (p.Properties.Roles as Json[]).some((r) => r.Ref === roleId),
    );
    return policies.flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
  };
  const allowedActions = (name: keyof MessagesApi['functions']) =>
    new Set(statementsOf(name).flatMap((s) => (s.Effect === 'Allow' ? actionsOf(s) : [])));

  beforeAll(() => {
    // The real app (with the real handler bundles), as `cdk synth` builds it; nag is tested in app.test.ts.
    platform = buildApp({ context: cdkJsonContext(), nag: false });
    config = platform.config;
    stack = platform.apiStack;
    api = platform.apiStack.messages;
    template = Template.fromStack(stack);
    resources = template.toJSON().Resources;
  });

  describe('REST API', () => {
    it('is a regional REST API whose API keys come from the authorizer', () => {
      template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
      template.hasResourceProperties('AWS::ApiGateway::RestApi', {
        ApiKeySourceType: 'AUTHORIZER',
        EndpointConfiguration: { Types: ['REGIONAL'] },
      });
    });

    it('deploys stage v1 with JSON access logs, X-Ray tracing, execution logging and throttling, without data trace', () => {
      template.resourceCountIs('AWS::ApiGateway::Stage', 1);
      const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0]?.Properties as Json;
      expect(stage.StageName).toBe(STAGE_NAME);
      expect(stage.TracingEnabled).toBe(true);
      expect(stage.MethodSettings).toEqual([
        {
          HttpMethod: '*',
          ResourcePath: '/*',
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          MetricsEnabled: false,
          ThrottlingRateLimit: platform.config.protection.stageThrottle.rateLimit,
          ThrottlingBurstLimit: platform.config.protection.stageThrottle.burstLimit,
        },
      ]);
      const format = JSON.parse(stage.AccessLogSetting.Format);
      expect(format).toMatchObject({
        requestId: '$context.requestId',
        ip: '$context.identity.sourceIp',
        status: '$context.status',
        httpMethod: '$context.httpMethod',
        resourcePath: '$context.resourcePath',
        principalId: '$context.authorizer.principalId',
        errorResponseType: '$context.error.responseType',
      });
      // The access log group, with retention.
      expect(JSON.stringify(stage.AccessLogSetting.DestinationArn)).toContain(
        idOf(api.node.findChild('AccessLogs') as never),
      );
    });

    it('has a REQUEST authorizer with no identity source and no result cache', () => {
      template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
      const authorizer = Object.values(template.findResources('AWS::ApiGateway::Authorizer'))[0]?.Properties as Json;
      expect(authorizer.Type).toBe('REQUEST');
      expect(authorizer.AuthorizerResultTtlInSeconds).toBe(0);
      expect(authorizer).not.toHaveProperty('IdentitySource');
      expect(JSON.stringify(authorizer.AuthorizerUri)).toContain(fnId('authorizer'));
      // API Gateway may invoke the authorizer, from this authorizer only.
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': [fnId('authorizer'), 'Arn'] },
        Principal: 'apigateway.amazonaws.com',
        SourceArn: Match.objectLike({ 'Fn::Join': Match.anyValue() }),
      });
    });

    it('routes POST /messages and /messages/batch, GET /messages/{id} and GET /messages, and everything else to the fallback, all behind the authorizer with the usage plan', () => {
      const paths = new Map<string, string>(); // logical id -> path
      const resourceDefs = template.findResources('AWS::ApiGateway::Resource');
      const pathOf = (ref: Json): string => {
        if (ref['Fn::GetAtt']) return ''; // the root resource
        const r = resourceDefs[ref.Ref as string];
        if (!r) throw new Error(`unknown resource ${JSON.stringify(ref)}`);
        return `${pathOf(r.Properties.ParentId)}/${r.Properties.PathPart}`;
      };
      for (const id of Object.keys(resourceDefs)) paths.set(id, pathOf({ Ref: id }));

      const routes: Record<string, string> = {};
      const integrationFn = (m: Json) => {
        const uri = JSON.stringify(m.Properties.Integration.Uri);
        const names = ['sendMessage', 'getMessage', 'fallback'] as const;
        return names.find((n) => uri.includes(fnId(n))) ?? 'unknown';
      };
      for (const m of Object.values(template.findResources('AWS::ApiGateway::Method'))) {
        const p = m.Properties as Json;
        expect(p.AuthorizationType).toBe('CUSTOM');
        expect(p.AuthorizerId).toEqual({ Ref: idOf(api.authorizer) });
        expect(p.ApiKeyRequired).toBe(true);
        expect(p.Integration).toMatchObject({ Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' });
        routes[`${p.HttpMethod} ${pathOf(p.ResourceId) || '/'}`] = integrationFn(m);
      }
      expect(routes).toEqual({
        'ANY /': 'fallback',
        'ANY /{proxy+}': 'fallback',
        'POST /messages': 'sendMessage',
        'GET /messages': 'getMessage',
        'ANY /messages': 'fallback',
        'POST /messages/batch': 'sendMessage',
        'ANY /messages/batch': 'fallback',
        'GET /messages/{id}': 'getMessage',
        'ANY /messages/{id}': 'fallback',
        'ANY /messages/{id}/{proxy+}': 'fallback',
      });
    });

    it('answers gateway errors with problem documents built from GATEWAY_RESPONSES', () => {
      template.resourceCountIs('AWS::ApiGateway::GatewayResponse', GATEWAY_RESPONSES.length);
      for (const def of GATEWAY_RESPONSES) {
        template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
          ResponseType: def.type,
          StatusCode: String(def.statusCode),
          ResponseParameters: Object.fromEntries(
            Object.entries(def.headers).map(([k, v]) => [`gatewayresponse.header.${k}`, `'${v}'`]),
          ),
          ResponseTemplates: { 'application/json': gatewayProblemBody(def, '$context.requestId') },
        });
      }
    });

    it('answers 401 with WWW-Authenticate: Bearer and the backstop 429s with Retry-After', () => {
      const byType = (type: string) =>
        Object.values(template.findResources('AWS::ApiGateway::GatewayResponse')).find(
          (r) => r.Properties.ResponseType === type,
        )?.Properties as Json;
      const unauthorized = byType('UNAUTHORIZED');
      expect(unauthorized.StatusCode).toBe('401');
      expect(unauthorized.ResponseParameters['gatewayresponse.header.WWW-Authenticate']).toBe('\'Bearer\'');
      const body = JSON.parse(
        unauthorized.ResponseTemplates['application/json'].replace('$context.requestId', 'req-1'),
      ) as Json;
      expect(body).toMatchObject({ status: 401, code: 'invalid_api_key', requestId: 'req-1' });
      for (const type of ['THROTTLED', 'QUOTA_EXCEEDED']) {
        const r = byType(type);
        expect(r.StatusCode, type).toBe('429');
        expect(r.ResponseParameters['gatewayresponse.header.Retry-After'], type).toMatch(/^'[1-9]\d*'$/);
      }
    });
  });

  describe('usage plans (the backstop)', () => {
    const expectedLimits = () => [
      ...PLAN_IDS.map((id) => ({ id: id as string, limits: config.plans[id].limits })),
      { id: 'anonymous', limits: config.anonymous },
    ];

    it('has one usage plan per plan plus anonymous, each at backstopFor(limits) on stage v1', () => {
      expect(USAGE_IDENTIFIERS).toEqual([...PLAN_IDS, 'anonymous']);
      template.resourceCountIs('AWS::ApiGateway::UsagePlan', PLAN_IDS.length + 1);
      for (const { id, limits } of expectedLimits()) {
        const backstop = usageIdentifierBackstop(id as (typeof USAGE_IDENTIFIERS)[number], config);
        const plan = resources[idOf(api.usagePlans[id as (typeof USAGE_IDENTIFIERS)[number]].plan)]?.Properties as Json;
        expect(plan, id).toBeDefined();
        expect(plan.Throttle, id).toEqual({ RateLimit: backstop.rateLimit, BurstLimit: backstop.burstLimit });
        expect(plan.Quota, id).toEqual({ Limit: backstop.quotaPerDay, Period: 'DAY' });
        expect(plan.ApiStages, id).toEqual([
          { ApiId: { Ref: idOf(api.api) }, Stage: { Ref: idOf(api.stage) }, Throttle: {} },
        ]);
        // The backstop is at or above the plan: our limiter answers first.
        expect(backstop.rateLimit * 60, id).toBeGreaterThanOrEqual(limits.perMinute);
        expect(backstop.quotaPerDay, id).toBeGreaterThanOrEqual(limits.perDay);
      }
    });

    it('binds exactly one pooled internal API key to each plan, with a value set at synth (64 hex characters, distinct)', () => {
      template.resourceCountIs('AWS::ApiGateway::ApiKey', USAGE_IDENTIFIERS.length);
      template.resourceCountIs('AWS::ApiGateway::UsagePlanKey', USAGE_IDENTIFIERS.length);
      const values = USAGE_IDENTIFIERS.map((u) => resources[idOf(api.usagePlans[u].key)]?.Properties.Value as string);
      for (const [i, u] of USAGE_IDENTIFIERS.entries()) {
        const key = resources[idOf(api.usagePlans[u].key)]?.Properties as Json;
        expect(key.Enabled, u).toBe(true);
        // API Gateway takes 20 to 128 alphanumeric characters.
        expect(values[i], u).toMatch(/^[0-9a-f]{64}$/);
        expect(values[i], u).toBe(pooledUsageKeyValue(stack.stackName, u));
      }
      expect(new Set(values).size).toBe(USAGE_IDENTIFIERS.length);
      for (const u of USAGE_IDENTIFIERS) {
        template.hasResourceProperties('AWS::ApiGateway::UsagePlanKey', {
          KeyId: { Ref: idOf(api.usagePlans[u].key) },
          KeyType: 'API_KEY',
          UsagePlanId: { Ref: idOf(api.usagePlans[u].plan) },
        });
      }
    });
  });

  describe('functions', () => {
    it('runs every Lambda function on Node.js 22, arm64, with active tracing and its own log group', () => {
      const functions = template.findResources('AWS::Lambda::Function');
      // The five of MessagesApi and the webhooks' delivery function (lib/constructs/webhooks).
      expect(Object.keys(functions)).toHaveLength(6);
      for (const [id, fn] of Object.entries(functions)) {
        expect(fn.Properties.Runtime, id).toBe('nodejs22.x');
        expect(fn.Properties.Architectures, id).toEqual(['arm64']);
        expect(fn.Properties.TracingConfig, id).toEqual({ Mode: 'Active' });
        expect(fn.Properties.Handler, id).toBe('index.handler');
        expect(fn.Properties.LoggingConfig.LogGroup.Ref, id).toBeDefined();
        expect(fn.Properties.Environment.Variables, id).toMatchObject({
          POWERTOOLS_METRICS_NAMESPACE: 'MessagesPlatform',
          POWERTOOLS_SERVICE_NAME: expect.any(String),
          NODE_OPTIONS: '--enable-source-maps',
        });
      }
      for (const group of Object.values(template.findResources('AWS::Logs::LogGroup'))) {
        expect(group.Properties.RetentionInDays).toBeGreaterThan(0);
        // API Gateway's execution logs and WAF's logs go with the stack (docs/operators/teardown.md).
        const name = JSON.stringify(group.Properties.LogGroupName ?? '');
        const goesWithStack = name.includes('API-Gateway-Execution-Logs_') || name.includes('aws-waf-logs-');
        expect(group.DeletionPolicy).toBe(goesWithStack ? 'Delete' : 'Retain');
      }
    });

    it('sizes the functions: 512 MB, 10 s, and the worker 30 s', () => {
      for (const name of ['authorizer', 'sendMessage', 'getMessage', 'fallback', 'worker'] as const) {
        expect(fnProps(name).MemorySize, name).toBe(512);
        expect(fnProps(name).Timeout, name).toBe(name === 'worker' ? 30 : 10);
      }
    });

    it('gives each function exactly the environment of the runtime contract', () => {
      const base = ['POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE', 'NODE_OPTIONS'];
      const expected: Record<keyof MessagesApi['functions'], string[]> = {
        authorizer: [ENV.apiKeysTable, ENV.limitsConfig, ENV.keyCacheSeconds, ENV.pooledUsageKeys],
        sendMessage: [
          ENV.rateLimitsTable,
          ENV.messagesTable,
          ENV.idempotencyTable,
          ENV.queueUrl,
          ENV.limitsConfig,
          ENV.messagesConfig,
        ],
        getMessage: [ENV.rateLimitsTable, ENV.messagesTable, ENV.limitsConfig, ENV.messagesConfig],
        fallback: [ENV.rateLimitsTable, ENV.limitsConfig, ENV.messagesConfig],
        // The webhooks' table and delivery queue: the worker tells outcomes to webhooks (Webhooks.connectWorker).
        worker: [
          ENV.messagesTable,
          ENV.messagesConfig,
          ENV.rateLimitsTable,
          ENV.queueUrl,
          WEBHOOK_ENV.webhooksTable,
          WEBHOOK_ENV.deliveryQueueUrl,
        ],
      };
      for (const [name, keys] of Object.entries(expected)) {
        const vars = fnProps(name as keyof MessagesApi['functions']).Environment.Variables as Json;
        expect(Object.keys(vars).sort(), name).toEqual([...base, ...keys].sort());
        if (vars[ENV.limitsConfig]) {
          expect(JSON.parse(vars[ENV.limitsConfig]), name).toEqual({
            plans: config.plans,
            anonymous: config.anonymous,
          });
        }
        if (vars[ENV.messagesConfig]) expect(JSON.parse(vars[ENV.messagesConfig]), name).toEqual(config.messages);
      }
      expect(fnProps('authorizer').Environment.Variables[ENV.keyCacheSeconds]).toBe(
        String(config.auth.keyCacheSeconds),
      );
    });

    it('passes the authorizer the value of every pooled usage key as POOLED_USAGE_KEYS JSON, as literals (no reference to resolve)', () => {
      const value = fnProps('authorizer').Environment.Variables[ENV.pooledUsageKeys] as unknown;
      expect(typeof value).toBe('string');
      expect(JSON.parse(value as string)).toEqual(
        Object.fromEntries(USAGE_IDENTIFIERS.map((u) => [u, resources[idOf(api.usagePlans[u].key)]?.Properties.Value])),
      );
    });

    it('consumes the queue in batches of up to 100 with partial batch responses', () => {
      // The worker's, and the webhooks' delivery function on its own queue.
      template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: fnId('worker') },
        BatchSize: 100,
        MaximumBatchingWindowInSeconds: 1,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    });
  });

  describe('least privilege', () => {
    it('attaches no managed policy to any function role', () => {
      for (const name of ['authorizer', 'sendMessage', 'getMessage', 'fallback', 'worker'] as const) {
        expect(resources[idOf(api.functions[name].role)]?.Properties.ManagedPolicyArns, name).toBeUndefined();
      }
    });

    it('uses Resource "*" only for the X-Ray write actions', () => {
      for (const name of ['authorizer', 'sendMessage', 'getMessage', 'fallback', 'worker'] as const) {
        for (const s of statementsOf(name)) {
          if (s.Resource === '*' || (Array.isArray(s.Resource) && s.Resource.includes('*'))) {
            expect(actionsOf(s).sort(), name).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
          }
          for (const a of actionsOf(s)) expect(a, name).not.toContain('*');
        }
      }
    });

    it('grants each function exactly its actions', () => {
      const logsXray = [
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ];
      const expected: Record<keyof MessagesApi['functions'], string[]> = {
        authorizer: ['dynamodb:GetItem'],
        sendMessage: [
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:BatchWriteItem',
          'sqs:SendMessage',
        ],
        getMessage: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
        fallback: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        worker: [
          'dynamodb:GetItem',
          'dynamodb:UpdateItem',
          'sqs:ChangeMessageVisibility',
          'sqs:DeleteMessage',
          'sqs:GetQueueAttributes',
          'sqs:GetQueueUrl',
          'sqs:ReceiveMessage',
          // Webhooks.connectWorker: the account's endpoints (Query), one delivery job per endpoint.
          'dynamodb:Query',
          'sqs:SendMessage',
        ],
      };
      for (const [name, actions] of Object.entries(expected)) {
        expect([...allowedActions(name as keyof MessagesApi['functions'])].sort(), name).toEqual(
          [...new Set([...logsXray, ...actions])].sort(),
        );
      }
    });

    it('lets the authorizer read the apiKeys table only, and write nothing', () => {
      const actions = allowedActions('authorizer');
      for (const a of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Query']) {
        expect(actions.has(a), a).toBe(false);
      }
      const dynamo = statementsOf('authorizer').filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
      expect(dynamo).toHaveLength(1);
      expect(stack.resolve(dynamo[0]?.Resource)).toEqual(
        stack.resolve(platform.dataStack.messages.tables.apiKeys.tableArn),
      );
    });

    it('gives the authorizer no API Gateway action at all: no management-plane call on the request path', () => {
      const apigateway = [...allowedActions('authorizer')].filter((a) => a.startsWith('apigateway:'));
      expect(apigateway).toEqual([]);
      const anyApiGatewayResource = statementsOf('authorizer').filter((st) =>
        JSON.stringify(st.Resource).includes(':apigateway:'),
      );
      expect(anyApiGatewayResource).toEqual([]);
    });

    it('scopes table grants to the tables each function needs (never index ARNs)', () => {
      const tables = platform.dataStack.messages.tables;
      const resourcesFor = (name: keyof MessagesApi['functions'], action: string) =>
        statementsOf(name)
          .filter((s) => actionsOf(s).includes(action))
          .flatMap((s) => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]));
      const arn = (t: keyof typeof tables) => stack.resolve(tables[t].tableArn);
      expect(resourcesFor('sendMessage', 'dynamodb:UpdateItem')).toEqual([arn('rateLimits')]);
      expect(resourcesFor('sendMessage', 'dynamodb:DeleteItem')).toEqual(
        expect.arrayContaining([arn('messages'), arn('idempotency')]),
      );
      expect(resourcesFor('sendMessage', 'dynamodb:DeleteItem')).toHaveLength(2);
      expect(resourcesFor('sendMessage', 'dynamodb:BatchWriteItem')).toEqual([arn('messages')]);
      expect(resourcesFor('getMessage', 'dynamodb:GetItem')).toEqual(
        expect.arrayContaining([arn('rateLimits'), arn('messages')]),
      );
      expect(resourcesFor('getMessage', 'dynamodb:PutItem')).toEqual([arn('rateLimits')]);
      // The message log: Query on the account index only, never on the table itself.
      const queried = resourcesFor('getMessage', 'dynamodb:Query');
      expect(queried).toHaveLength(1);
      expect(JSON.stringify(queried[0])).toContain('/index/byAccount');
      expect(JSON.stringify(queried[0])).toContain(JSON.stringify(arn('messages')).slice(1, -1));
      expect(resourcesFor('fallback', 'dynamodb:GetItem')).toEqual([arn('rateLimits')]);
      // The worker's usage history: UpdateItem on the limiter's table, nothing else there.
      expect(resourcesFor('worker', 'dynamodb:UpdateItem')).toEqual(expect.arrayContaining([arn('messages'), arn('rateLimits')]));
      expect(resourcesFor('worker', 'dynamodb:UpdateItem')).toHaveLength(2);
      expect(resourcesFor('worker', 'dynamodb:GetItem')).toEqual([arn('messages')]);
      expect(resourcesFor('sendMessage', 'sqs:SendMessage')).toEqual([
        stack.resolve(platform.dataStack.messages.queue.queueArn),
      ]);
    });

    it('does not let the worker (or anything but sendMessage) send to the queue', () => {
      for (const name of ['authorizer', 'getMessage', 'fallback'] as const) {
        expect(allowedActions(name).has('sqs:SendMessage'), name).toBe(false);
      }
      // The worker sends only to the webhooks' delivery queue, never to the messages queue.
      const workerSends = statementsOf('worker').filter((s) => s.Effect === 'Allow' && actionsOf(s).includes('sqs:SendMessage'));
      expect(workerSends).toHaveLength(1);
      expect(JSON.stringify(workerSends[0]?.Resource)).toMatch(/Delivery/);
      expect(JSON.stringify(workerSends[0]?.Resource)).not.toMatch(/MessagesQueue|MessageQueue/);
    });
  });

  describe('account service (operator)', () => {
    const outputs = () => template.toJSON().Outputs as Json;
    const operatorPolicy = () => {
      const policies = template.findResources('AWS::IAM::ManagedPolicy');
      expect(Object.keys(policies)).toEqual([idOf(api.usagePlanTargets.operatorPolicy)]);
      return Object.values(policies)[0]?.Properties as Json;
    };
    const operatorStatements = () => operatorPolicy().PolicyDocument.Statement as (Statement & { Sid: string })[];

    it('outputs the REST API id, stage and standard usage plan ids under fixed names, as the construct exposes them', () => {
      expect(OPERATOR_OUTPUTS).toEqual({
        restApiId: 'RestApiId',
        stageName: 'StageName',
        freeUsagePlanId: 'FreeUsagePlanId',
        proUsagePlanId: 'ProUsagePlanId',
        businessUsagePlanId: 'BusinessUsagePlanId',
        operatorPolicyArn: 'OperatorPolicyArn',
      });
      const o = outputs();
      expect(o.RestApiId.Value).toEqual({ Ref: idOf(api.api) });
      expect(o.StageName.Value).toEqual({ Ref: idOf(api.stage) });
      expect(o.FreeUsagePlanId.Value).toEqual({ Ref: idOf(api.usagePlans.free.plan) });
      expect(o.ProUsagePlanId.Value).toEqual({ Ref: idOf(api.usagePlans.pro.plan) });
      expect(o.BusinessUsagePlanId.Value).toEqual({ Ref: idOf(api.usagePlans.business.plan) });
      expect(o.OperatorPolicyArn.Value).toEqual({ Ref: idOf(api.usagePlanTargets.operatorPolicy) });
      for (const name of Object.values(OPERATOR_OUTPUTS)) {
        expect(o[name].Description, name).toEqual(expect.any(String));
      }
      // The construct exposes the same values and outputs.
      expect(stack.resolve(api.usagePlanTargets.restApiId)).toEqual(o.RestApiId.Value);
      expect(stack.resolve(api.usagePlanTargets.stageName)).toEqual(o.StageName.Value);
      expect(stack.resolve(api.usagePlanTargets.standardPlanIds)).toEqual({
        free: o.FreeUsagePlanId.Value,
        pro: o.ProUsagePlanId.Value,
        business: o.BusinessUsagePlanId.Value,
      });
      for (const [key, name] of Object.entries(OPERATOR_OUTPUTS)) {
        expect(api.operatorOutputs[key as keyof typeof OPERATOR_OUTPUTS].node.id, key).toBe(name);
      }
    });

    it('has an operator managed policy with a description, attached to nobody by the stack', () => {
      const policy = operatorPolicy();
      expect(policy.Description).toMatch(/control plane.*operator CLI/);
      expect(policy.Roles ?? policy.Users ?? policy.Groups).toBeUndefined();
    });

    it('gives the operator exactly the account service\'s actions, on named resources, never a "*" action', () => {
      const tables = platform.dataStack.messages.tables;
      const arn = (t: keyof typeof tables) => stack.resolve(tables[t].tableArn);
      const apigw = (path: string) => `arn:aws:apigateway:${stack.region}::${path}`;
      const bySid = Object.fromEntries(
        operatorStatements().map((s) => [
          s.Sid,
          { effect: s.Effect, actions: actionsOf(s).sort(), resource: s.Resource },
        ]),
      );
      expect(bySid).toEqual({
        // Scan: keys backfill-usage-keys without --account reads every key record.
        ApiKeyRecords: {
          effect: 'Allow',
          actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
          resource: arn('apiKeys'),
        },
        ApiKeysOfAnAccount: {
          effect: 'Allow',
          actions: ['dynamodb:Query'],
          resource: { 'Fn::Join': ['', [arn('apiKeys'), '/index/byAccount']] },
        },
        Accounts: { effect: 'Allow', actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Scan'], resource: arn('accounts') },
        LimiterItems: { effect: 'Allow', actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], resource: arn('rateLimits') },
        ApiKeysAndUsagePlans: {
          effect: 'Allow',
          actions: ['apigateway:DELETE', 'apigateway:GET', 'apigateway:PATCH', 'apigateway:POST'],
          resource: [apigw('/apikeys'), apigw('/apikeys/*'), apigw('/usageplans'), apigw('/usageplans/*')],
        },
        TagOnCreate: { effect: 'Allow', actions: ['apigateway:PUT'], resource: apigw('/tags/*') },
        StackOutputs: { effect: 'Allow', actions: ['cloudformation:DescribeStacks'], resource: { Ref: 'AWS::StackId' } },
        RedriveFromDeadLetterQueue: {
          effect: 'Allow',
          actions: ['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage', 'sqs:StartMessageMoveTask'],
          resource: stack.resolve(platform.dataStack.messages.deadLetterQueue.queueArn),
        },
        RedriveToQueue: {
          effect: 'Allow',
          actions: ['sqs:GetQueueAttributes', 'sqs:SendMessage'],
          resource: stack.resolve(platform.dataStack.messages.queue.queueArn),
        },
        // `domains check-drift|show|verify|release --stack`: the flow, the two tables' items, the stacks' outputs (lib/app.ts).
        StartDomainFlow: {
          effect: 'Allow',
          actions: ['states:StartExecution'],
          resource: stack.resolve(platform.domainsStack.flow.stateMachine.stateMachineArn),
        },
        DomainFlowHistory: {
          effect: 'Allow',
          actions: ['states:ListExecutions'],
          resource: stack.resolve(platform.domainsStack.flow.stateMachine.stateMachineArn),
        },
        DomainRecords: {
          effect: 'Allow',
          actions: ['dynamodb:GetItem'],
          resource: [
            stack.resolve(platform.domainsDataStack.projects.tables.projects.tableArn),
            stack.resolve(platform.domainsDataStack.projects.tables.domains.tableArn),
          ],
        },
        DomainReverify: {
          effect: 'Allow',
          actions: ['dynamodb:UpdateItem'],
          resource: stack.resolve(platform.domainsDataStack.projects.tables.domains.tableArn),
        },
        DomainsStackOutputs: {
          effect: 'Allow',
          actions: ['cloudformation:DescribeStacks'],
          resource: [stack.resolve(platform.domainsStack.stackId), stack.resolve(platform.domainsDataStack.stackId)],
        },
      });
      for (const s of operatorStatements()) {
        for (const a of actionsOf(s)) expect(a, s.Sid).not.toContain('*');
        expect(s.Resource, s.Sid).not.toBe('*');
        expect(s).not.toHaveProperty('NotAction');
        expect(s).not.toHaveProperty('NotResource');
      }
    });
  });

  describe('alarms and outputs', () => {
    it('alarms on any dead-lettered message', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: Match.anyValue() }],
        Statistic: 'Maximum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
      });
      const alarm = resources[idOf(api.alarms.deadLetterQueue)]?.Properties as Json;
      expect(stack.resolve(alarm.Dimensions[0].Value)).toEqual(
        stack.resolve(platform.dataStack.messages.deadLetterQueue.queueName),
      );
    });

    it('alarms on API 5XX errors and on worker errors', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/ApiGateway',
        MetricName: '5XXError',
        Statistic: 'Sum',
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: fnId('worker') } }],
        Threshold: 1,
      });
      // The app gives the Operations stack's topic: every alarm notifies it, on alarm and back to OK.
      const topic = {
        'Fn::GetStackOutput': expect.objectContaining({ StackName: platform.operationsStack.stackName, Region: platform.config.platform.region }),
      };
      for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm'))) {
        expect(alarm.Properties.AlarmActions).toEqual([topic]);
        expect(alarm.Properties.OKActions).toEqual([topic]);
      }
    });

    const alarmProps = (name: keyof MessagesApi['alarms']) => resources[idOf(api.alarms[name])]?.Properties as Json;

    it('alarms when any function of the API is throttled (sum of all five >= 1 in 5 min)', () => {
      const alarm = alarmProps('throttles');
      expect(alarm).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      const queries = alarm.Metrics as Json[];
      const expression = queries.find((q) => q.Expression) as Json;
      expect(expression).toBeDefined();
      expect(expression.ReturnData).not.toBe(false);
      const throttles = queries.filter((q) => q.MetricStat);
      expect(throttles).toHaveLength(5);
      for (const q of throttles) {
        expect(q.MetricStat).toMatchObject({ Metric: { Namespace: 'AWS/Lambda', MetricName: 'Throttles' }, Stat: 'Sum', Period: 300 });
        expect(expression.Expression).toContain(`FILL(${q.Id}, 0)`);
      }
      const throttled = throttles.map((q) => q.MetricStat.Metric.Dimensions[0].Value);
      expect(throttled).toEqual(
        expect.arrayContaining((Object.keys(api.functions) as (keyof MessagesApi['functions'])[]).map((n) => ({ Ref: fnId(n) }))),
      );
    });

    it('alarms when the API p99 latency is above 1000 ms (default) for two 5-minute periods', () => {
      expect(alarmProps('apiLatency')).toMatchObject({
        Namespace: 'AWS/ApiGateway',
        MetricName: 'Latency',
        ExtendedStatistic: 'p99',
        Period: 300,
        Threshold: 1000,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 2,
        DatapointsToAlarm: 2,
      });
    });

    it('alarms when the oldest queued message is 5 minutes old', () => {
      const alarm = alarmProps('queueAge');
      expect(alarm).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Statistic: 'Maximum',
        Threshold: 300,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      expect(stack.resolve(alarm.Dimensions[0].Value)).toEqual(
        stack.resolve(platform.dataStack.messages.queue.queueName),
      );
    });

    it('keeps six alarms, every one in the alarms property', () => {
      expect(Object.keys(api.alarms).sort()).toEqual(
        ['apiLatency', 'deadLetterQueue', 'queueAge', 'serverErrors', 'throttles', 'workerErrors'],
      );
      // Beside them in this stack: the webhooks' delivery DLQ alarm (lib/constructs/webhooks).
      const ids = [...Object.values(api.alarms), platform.apiStack.webhooks.deadLetterAlarm].map((a) => idOf(a));
      expect(Object.keys(template.findResources('AWS::CloudWatch::Alarm')).sort()).toEqual(ids.sort());
    });

    describe('dashboard', () => {
      interface Widget {
        type: string;
        properties: { title?: string; metrics?: unknown[][]; alarms?: unknown[] };
      }
      let dashboard: Json;
      let widgets: Widget[];
      const widget = (title: string) => {
        const w = widgets.find((x) => x.properties.title === title);
        expect(w, title).toBeDefined();
        return w as Widget;
      };
      /** The metrics of a widget as `namespace metricName stat` (or the expression), tokens as `<Ref>`. */
      const metricsOf = (title: string) =>
        (widget(title).properties.metrics ?? []).map((m) => {
          const options = m[m.length - 1] as { stat?: string; expression?: string };
          if (options.expression) return options.expression;
          return `${m[0]} ${m[1]} ${options.stat}`;
        });

      beforeAll(() => {
        const dashboards = template.findResources('AWS::CloudWatch::Dashboard');
        expect(Object.keys(dashboards)).toEqual([idOf(api.opsDashboard)]);
        dashboard = Object.values(dashboards)[0]?.Properties as Json;
        const body = dashboard.DashboardBody as Json;
        const text = (body['Fn::Join'][1] as (string | Json)[])
          .map((p) => (typeof p === 'string' ? p : `<${JSON.stringify(p).replace(/"/g, '\'')}>`))
          .join('');
        widgets = JSON.parse(text).widgets as Widget[];
      });

      it('is named <stackName>-<region>-messages (unique per account) and is a stack output', () => {
        expect(dashboard.DashboardName).toBe(`${stack.stackName}-${stack.region}-messages`);
        const outputs = template.toJSON().Outputs as Json;
        expect(outputs.OpsDashboardName.Value).toEqual({ Ref: idOf(api.opsDashboard) });
      });

      it('shows API requests, 4XX, 5XX and latency p50/p99', () => {
        expect(metricsOf('API requests, 4XX and 5XX')).toEqual([
          'AWS/ApiGateway Count Sum',
          'AWS/ApiGateway 4XXError Sum',
          'AWS/ApiGateway 5XXError Sum',
        ]);
        expect(metricsOf('API latency (p50, p99)')).toEqual(['AWS/ApiGateway Latency p50', 'AWS/ApiGateway Latency p99']);
      });

      it('shows accepted vs rejected by reason (a SEARCH over RequestRejected)', () => {
        const [accepted, rejected] = metricsOf('Accepted vs rejected (by reason)');
        expect(accepted).toBe('MessagesPlatform MessageAccepted Sum');
        expect(rejected).toMatch(/^SEARCH\('\{MessagesPlatform,reason,service\} MetricName="RequestRejected"', 'Sum', 300\)$/);
      });

      it('shows the worker outcomes and the limiter latency', () => {
        expect(metricsOf('Worker: processed, failed, orphans')).toEqual([
          'MessagesPlatform MessageProcessed Sum',
          'MessagesPlatform MessageFailed Sum',
          'MessagesPlatform OrphanDropped Sum',
        ]);
        expect(metricsOf('Limiter latency (p50, p99)')).toEqual([
          'MessagesPlatform LimiterLatency p50',
          'MessagesPlatform LimiterLatency p99',
        ]);
      });

      it('shows queue depth, age of the oldest message and DLQ depth', () => {
        expect(metricsOf('Queue depth and age of oldest message')).toEqual([
          'AWS/SQS ApproximateNumberOfMessagesVisible Maximum',
          'AWS/SQS ApproximateNumberOfMessagesNotVisible Maximum',
          'AWS/SQS ApproximateAgeOfOldestMessage Maximum',
        ]);
        expect(metricsOf('DLQ depth')).toEqual(['AWS/SQS ApproximateNumberOfMessagesVisible Maximum']);
      });

      it('shows errors, throttles, duration and concurrency of every function', () => {
        const five = (line: string) => Array<string>(5).fill(line);
        expect(metricsOf('Lambda errors')).toEqual(five('AWS/Lambda Errors Sum'));
        expect(metricsOf('Lambda throttles')).toEqual(five('AWS/Lambda Throttles Sum'));
        expect(metricsOf('Lambda duration (p99)')).toEqual(five('AWS/Lambda Duration p99'));
        expect(metricsOf('Concurrent executions')).toEqual([
          ...five('AWS/Lambda ConcurrentExecutions Maximum'),
          'AWS/Lambda ConcurrentExecutions Maximum',
        ]);
        for (const title of ['Lambda errors', 'Lambda throttles', 'Lambda duration (p99)']) {
          const text = JSON.stringify(widget(title).properties.metrics);
          for (const name of Object.keys(api.functions) as (keyof MessagesApi['functions'])[]) {
            expect(text, `${title} ${name}`).toContain(fnId(name));
          }
        }
      });

      it('shows the state of every alarm', () => {
        expect(widget('Alarms').properties.alarms).toHaveLength(Object.keys(api.alarms).length);
      });
    });

    it('has every output the operator CLI requires', () => {
      const outputs = template.toJSON().Outputs as Json;
      for (const key of [...REQUIRED_OUTPUT_KEYS, PLATFORM_CONFIG_OUTPUT]) expect(outputs[key], key).toBeDefined();
    });

    it('outputs the API URL, the queue URLs and every table name', () => {
      const outputs = template.toJSON().Outputs as Json;
      for (const name of [
        'ApiUrl',
        'QueueUrl',
        'DeadLetterQueueUrl',
        'ApiKeysTableName',
        'AccountsTableName',
        'RateLimitsTableName',
        'MessagesTableName',
        'IdempotencyTableName',
      ]) {
        expect(outputs[name], name).toBeDefined();
      }
      expect(outputs.ApiUrl.Value).toEqual(stack.resolve(api.api.url));
      expect(JSON.stringify(outputs.ApiUrl.Value)).toContain(`"/",{"Ref":"${idOf(api.stage)}"},"/"`);
      const tables = platform.dataStack.messages.tables;
      expect(outputs.MessagesTableName.Value).toEqual(stack.resolve(tables.messages.tableName));
      expect(outputs.QueueUrl.Value).toEqual(stack.resolve(platform.dataStack.messages.queue.queueUrl));
    });
  });
});

describe('MessagesApi pooled usage key values', () => {
  const valuesOf = (stackName: string) => {
    const app = new App({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING } });
    const stack = new Stack(app, stackName, { env: { region: 'eu-west-1' } });
    const config = loadConfig();
    const data = new MessagesData(stack, 'Data', { config });
    const api = new MessagesApi(stack, 'Api', { config, data, manageCloudWatchRole: false });
    const resources = Template.fromStack(stack).toJSON().Resources as Record<string, Json>;
    const logicalId = (u: (typeof USAGE_IDENTIFIERS)[number]) =>
      stack.getLogicalId(api.usagePlans[u].key.node.defaultChild as CfnResource);
    return USAGE_IDENTIFIERS.map((u) => resources[logicalId(u)]?.Properties.Value as string);
  };

  it('are the same on every synth of a stack (a changed Value would replace the keys), and differ between stacks', () => {
    const first = valuesOf('Prod-Api');
    expect(valuesOf('Prod-Api')).toEqual(first);
    const other = valuesOf('Staging-Api');
    expect(other.filter((value) => first.includes(value))).toEqual([]);
  });
});

describe('MessagesApi with an alarm topic', () => {
  it('takes the p99 latency threshold of its alarm from config alarms.apiLatencyP99ThresholdMs', () => {
    const app = new App({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING } });
    const stack = new Stack(app, 'Latency', { env: { region: 'eu-west-1' } });
    const config = loadConfig({ alarms: { apiLatencyP99ThresholdMs: 250 } });
    const data = new MessagesData(stack, 'Data', { config });
    new MessagesApi(stack, 'Api', { config, data, manageCloudWatchRole: false });
    Template.fromStack(stack).hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Threshold: 250,
    });
  });

  it('notifies the topic on alarm and on recovery', () => {
    const app = new App({ context: { ...cdkJsonContext(), ...SKIP_BUNDLING } });
    const stack = new Stack(app, 'Alarms', { env: { region: 'eu-west-1' } });
    const config = loadConfig();
    const data = new MessagesData(stack, 'Data', { config });
    const topic = new sns.Topic(stack, 'Topic');
    new MessagesApi(stack, 'Api', { config, data, alarmTopic: topic, manageCloudWatchRole: false });
    const template = Template.fromStack(stack);
    const topicRef = { Ref: stack.getLogicalId(topic.node.defaultChild as CfnResource) };
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(6);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([topicRef]);
      expect(alarm.Properties.OKActions).toEqual([topicRef]);
    }
    // The latency threshold is configurable.
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Latency', Threshold: 1000 });
    // manageCloudWatchRole: false leaves the account-level API Gateway setting alone.
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
  });
});
