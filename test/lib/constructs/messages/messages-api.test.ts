import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PlatformApp } from '../../../../lib/app.js';
import { loadConfig, PLAN_IDS, usageIdentifierBackstop, type PlatformConfig } from '../../../../lib/config/index.js';
import { GATEWAY_RESPONSES, gatewayProblemBody } from '../../../../contracts/gateway-responses.js';
import { MessagesApi } from '../../../../lib/constructs/messages/messages-api.js';
import { STAGE_NAME } from '../../../../lib/constructs/messages/messages-rest-api.js';
import { USAGE_IDENTIFIERS } from '../../../../lib/constructs/messages/usage-plan-backstop.js';
import { MessagesData } from '../../../../lib/constructs/messages/messages-data.js';
import { pooledUsageKeyValue } from '../../../../lib/constructs/messages/pooled-usage-keys.js';
import { cdkJsonContext, SKIP_BUNDLING } from '../../support/cdk-app.js';
import { apiStackOfTheApp, type ApiStackOfTheApp, type Json } from './messages-api.fixture.js';

// MessagesApi in the app: its REST API and usage plans. Its functions, the operator's access and its
// alarms and outputs are in messages-api-functions, -operator and -observability.test.ts.

describe('MessagesApi (in the ApiStack of the app)', () => {
  let platform: PlatformApp;
  let config: PlatformConfig;
  let stack: Stack;
  let api: MessagesApi;
  let template: Template;
  let resources: Record<string, Json>;
  let idOf: ApiStackOfTheApp['idOf'];
  let fnId: ApiStackOfTheApp['fnId'];

  beforeAll(() => {
    ({ platform, config, stack, api, template, resources, idOf, fnId } = apiStackOfTheApp());
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
