import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES, gatewayProblemBody } from '../../../../contracts/gateway-responses.js';
import { createMessagesFunctions } from '../../../../lib/constructs/messages/messages-functions.js';
import { createMessagesRestApi, STAGE_NAME } from '../../../../lib/constructs/messages/messages-rest-api.js';
import { MESSAGES_API_TRACE_SAMPLING } from '../../../../lib/constructs/messages/trace-sampling.js';
import { bareMessagesStack, logicalIdOf } from '../../support/bare-stack.js';

describe('createMessagesRestApi (in a bare stack)', () => {
  const { stack, config, data } = bareMessagesStack();
  const functions = createMessagesFunctions(stack, { config, data });
  const rest = createMessagesRestApi(stack, { config, functions });
  const template = Template.fromStack(stack);
  type Resource = { Type: string; Properties: Record<string, unknown> };
  const resources = template.toJSON().Resources as Record<string, Resource>;

  it('creates the API, its authorizer and its web ACL in the given scope, with the ids RestApi, RequestAuthorizer and Firewall', () => {
    expect([rest.api.node.id, rest.authorizer.node.id, rest.firewall.node.id]).toEqual(['RestApi', 'RequestAuthorizer', 'Firewall']);
    for (const part of [rest.api, rest.authorizer, rest.firewall]) expect(part.node.scope).toBe(stack);
    expect(rest.stage).toBe(rest.api.deploymentStage);
  });

  it('authorizes every request with the REQUEST authorizer, without identity sources or result cache', () => {
    const authorizer = resources[logicalIdOf(stack, rest.authorizer)]?.Properties;
    expect(authorizer?.Type).toBe('REQUEST');
    expect(authorizer?.IdentitySource).toBeUndefined();
    expect(authorizer?.AuthorizerResultTtlInSeconds).toBe(0);
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    expect(methods).toHaveLength(10);
    for (const method of methods) {
      expect(method.Properties.AuthorizationType).toBe('CUSTOM');
      expect(method.Properties.ApiKeyRequired).toBe(true);
    }
  });

  it('routes POST /messages and POST /messages/batch to send, GET /messages/{id} and GET /messages to get, and everything else to the fallback', () => {
    const targetOf = (httpMethod: string, pathPart: string | undefined) => {
      const method = Object.values(template.findResources('AWS::ApiGateway::Method')).find((m) => {
        const resourceRef = (m.Properties.ResourceId as { Ref?: string }).Ref;
        const part = resourceRef ? resources[resourceRef]?.Properties.PathPart : undefined;
        return m.Properties.HttpMethod === httpMethod && part === pathPart;
      });
      return JSON.stringify(method?.Properties.Integration.Uri);
    };
    expect(targetOf('POST', 'messages')).toContain(logicalIdOf(stack, functions.sendMessage.function));
    expect(targetOf('POST', 'batch')).toContain(logicalIdOf(stack, functions.sendMessage.function));
    expect(targetOf('ANY', 'batch')).toContain(logicalIdOf(stack, functions.fallback.function));
    expect(targetOf('GET', '{id}')).toContain(logicalIdOf(stack, functions.getMessage.function));
    // The message log, on the same read function.
    expect(targetOf('GET', 'messages')).toContain(logicalIdOf(stack, functions.getMessage.function));
    expect(targetOf('ANY', 'messages')).toContain(logicalIdOf(stack, functions.fallback.function));
    expect(targetOf('ANY', undefined)).toContain(logicalIdOf(stack, functions.fallback.function));
  });

  it('deploys the stage v1, throttled by the config, with tracing and no data trace', () => {
    expect(STAGE_NAME).toBe('v1');
    const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0]?.Properties;
    expect(stage?.StageName).toBe(STAGE_NAME);
    expect(stage?.TracingEnabled).toBe(true);
    expect(stage?.MethodSettings).toEqual([
      expect.objectContaining({
        DataTraceEnabled: false,
        ThrottlingRateLimit: config.protection.stageThrottle.rateLimit,
        ThrottlingBurstLimit: config.protection.stageThrottle.burstLimit,
      }),
    ]);
  });

  it('samples the stage by its own X-Ray rule: 1 a second, then 1 %, matched by the stage ARN only', () => {
    const rules = Object.values(template.findResources('AWS::XRay::SamplingRule'));
    expect(rules).toHaveLength(1);
    const rule = rules[0]?.Properties.SamplingRule as Record<string, unknown>;
    expect(rule).toMatchObject({
      ReservoirSize: MESSAGES_API_TRACE_SAMPLING.reservoirPerSecond,
      FixedRate: MESSAGES_API_TRACE_SAMPLING.fixedRate,
      ServiceType: 'AWS::ApiGateway::Stage',
      ServiceName: '*',
      Host: '*',
      HTTPMethod: '*',
      URLPath: '*',
      Version: 1,
    });
    expect(MESSAGES_API_TRACE_SAMPLING.fixedRate).toBeLessThan(0.05);
    // Names are unique per account and region: at most 32 characters, derived from the stack's path.
    expect(String(rule.RuleName).length).toBeLessThanOrEqual(32);
    expect(String(rule.RuleName)).toMatch(/^[A-Za-z0-9]+$/);
    expect(stack.resolve(rest.stage.stageArn)).toEqual(rule.ResourceARN);
    expect(JSON.stringify(rule.ResourceARN)).toContain(logicalIdOf(stack, rest.api));
  });

  it('answers every gateway response type of contracts/gateway-responses.ts with its problem body', () => {
    const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse'));
    expect(responses.map((r) => r.Properties.ResponseType).sort()).toEqual(GATEWAY_RESPONSES.map((d) => d.type).sort());
    for (const def of GATEWAY_RESPONSES) {
      const response = responses.find((r) => r.Properties.ResponseType === def.type);
      expect(response?.Properties.StatusCode, def.type).toBe(String(def.statusCode));
      expect(response?.Properties.ResponseTemplates, def.type).toEqual({
        'application/json': gatewayProblemBody(def, '$context.requestId'),
      });
    }
  });
});
