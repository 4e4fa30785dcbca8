import { Template } from 'aws-cdk-lib/assertions';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import { describe, expect, it } from 'vitest';
import { CONTROL_GATEWAY_RESPONSES } from '../../../../contracts/control-gateway-responses.js';
import {
  addControlRoutes,
  CONTROL_CORS_METHODS,
  CONTROL_STAGE_NAME,
  createControlRestApi,
} from '../../../../lib/constructs/dashboard/control-api.js';
import { PlatformFunction } from '../../../../lib/constructs/shared/platform-function.js';
import { bareStack, logicalIdOf } from '../../support/bare-stack.js';

describe('createControlRestApi and addControlRoutes (in a bare stack)', () => {
  const { stack } = bareStack();
  const userPool = new cognito.UserPool(stack, 'Owners');
  const handler = new PlatformFunction(stack, 'Handler', { entry: 'lambda/control/http-handler.ts', serviceName: 'control-api' });
  const controlApi = createControlRestApi(stack);
  const authorizer = addControlRoutes(stack, { api: controlApi.api, handler, userPool, dashboardOrigin: 'https://d111.cloudfront.net' });
  const template = Template.fromStack(stack);

  it('creates the API and its Cognito authorizer with the ids ControlApi and CognitoAuthorizer, without the Endpoint output', () => {
    expect([controlApi.api.node.id, authorizer.node.id]).toEqual(['ControlApi', 'CognitoAuthorizer']);
    expect(controlApi.api.node.tryFindChild('Endpoint')).toBeUndefined();
    expect(Object.keys(template.toJSON().Outputs ?? {})).toEqual([]);
  });

  it('throttles the stage v1 at 50 requests/s, bursts of 100', () => {
    const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0]?.Properties;
    expect(stage?.StageName).toBe(CONTROL_STAGE_NAME);
    const throttle = { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 };
    expect(stage?.MethodSettings).toEqual([expect.objectContaining(throttle)]);
  });

  it('sends every method but the preflights through the Cognito authorizer to the one handler', () => {
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    const any = methods.filter((m) => m.Properties.HttpMethod === 'ANY');
    const options = methods.filter((m) => m.Properties.HttpMethod === 'OPTIONS');
    expect([any.length, options.length]).toEqual([2, 2]);
    for (const method of any) {
      expect(method.Properties.AuthorizationType).toBe('COGNITO_USER_POOLS');
      expect(JSON.stringify(method.Properties.Integration.Uri)).toContain(logicalIdOf(stack, handler.function));
    }
    for (const method of options) expect(method.Properties.AuthorizationType).toBe('NONE');
    expect(CONTROL_CORS_METHODS).toContain('OPTIONS');
  });

  it('answers every control gateway response with the dashboard origin allowed', () => {
    const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse'));
    const types = responses.map((r) => r.Properties.ResponseType as string);
    expect(types.sort()).toEqual(CONTROL_GATEWAY_RESPONSES.map((d) => d.type).sort());
    for (const response of responses) {
      expect(response.Properties.ResponseParameters['gatewayresponse.header.Access-Control-Allow-Origin']).toBe('\'https://d111.cloudfront.net\'');
    }
  });
});
