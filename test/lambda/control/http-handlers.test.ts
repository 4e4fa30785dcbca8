import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { ControlApi, ControlRequest } from '../../../lambda/control/control-api.js';
import { createControlApiHandler, ownerFromClaims } from '../../../lambda/control/http-handlers.js';

// The dashboard API's Lambda entry: the owner comes from the Cognito authorizer's claims, the
// answers carry the dashboard origin's CORS header, and a failure is a problem document.
const context = { awsRequestId: 'aws-req', functionName: 'control', getRemainingTimeInMillis: () => 1000 } as unknown as Context;

type EventOverrides = Partial<APIGatewayProxyEvent> & { claims?: Record<string, string> | undefined };

function event(overrides: EventOverrides): APIGatewayProxyEvent {
  const { claims, ...rest } = overrides;
  return {
    httpMethod: 'GET',
    path: '/me',
    resource: '/{proxy+}',
    headers: {},
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'req-1', ...(claims ? { authorizer: { claims } } : {}) },
    ...rest,
  } as unknown as APIGatewayProxyEvent;
}

function recordingApi(answer: () => Promise<{ status: number; headers: Record<string, string>; body: string }>) {
  const seen: ControlRequest[] = [];
  const api = {
    handle: (request: ControlRequest) => {
      seen.push(request);
      return answer();
    },
  } as unknown as ControlApi;
  return { api, seen };
}

const ok = () => Promise.resolve({ status: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' });

describe('control API Lambda handler', () => {
  it('passes the Cognito owner, the path, the decoded body and the content type; adds CORS for the dashboard', async () => {
    const { api, seen } = recordingApi(ok);
    const handler = createControlApiHandler(api, { dashboardOrigin: 'https://d111.cloudfront.net' });
    const result = await handler(
      event({
        httpMethod: 'POST',
        path: '/accounts/acct_1/keys',
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{"name":"ci"}').toString('base64'),
        isBase64Encoded: true,
        claims: { sub: 'c0ffee-sub', email: 'owner@example.com', 'cognito:username': 'owner' },
      }),
      context,
    );
    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({ 'Access-Control-Allow-Origin': 'https://d111.cloudfront.net', Vary: 'Origin' });
    expect(seen).toEqual([
      {
        method: 'POST',
        path: '/accounts/acct_1/keys',
        contentType: 'application/json',
        body: '{"name":"ci"}',
        query: {},
        principal: { kind: 'owner', ownerId: 'c0ffee-sub', email: 'owner@example.com' },
        requestId: 'req-1',
      },
    ]);
  });

  it('passes the query string parameters that have a value', async () => {
    const { api, seen } = recordingApi(ok);
    await createControlApiHandler(api)(
      event({
        path: '/accounts/acct_1/usage/history',
        queryStringParameters: { days: '7', empty: undefined } as unknown as Record<string, string>,
        claims: { sub: 'c0ffee-sub' },
      }),
      context,
    );
    expect(seen.map((request) => request.query)).toEqual([{ days: '7' }]);
  });

  it('answers 401 without claims (never trusts a request that skipped the authorizer)', async () => {
    const { api, seen } = recordingApi(ok);
    const result = await createControlApiHandler(api)(event({}), context);
    expect(result.statusCode).toBe(401);
    expect(JSON.parse(result.body)).toMatchObject({ status: 401, code: 'unauthorized', requestId: 'req-1' });
    expect(seen).toHaveLength(0);
  });

  it('answers an unexpected failure with a 500 problem that reveals nothing', async () => {
    const { api } = recordingApi(() => Promise.reject(new Error('table Secret-Internal-Name missing')));
    const result = await createControlApiHandler(api)(event({ claims: { sub: 's' } }), context);
    expect(result.statusCode).toBe(500);
    expect(result.headers?.['Content-Type']).toBe('application/problem+json');
    expect(result.body).not.toContain('Secret-Internal-Name');
  });

  it('reads the owner from claims: sub is required, email optional', () => {
    expect(ownerFromClaims({ claims: { sub: 'abc' } })).toEqual({ kind: 'owner', ownerId: 'abc' });
    expect(ownerFromClaims({ claims: { email: 'x@example.com' } })).toBeUndefined();
    expect(ownerFromClaims(undefined)).toBeUndefined();
  });
});
