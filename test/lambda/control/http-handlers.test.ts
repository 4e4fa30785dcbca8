import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { ControlServices } from '../../../lambda/control/control-router.js';
import { createControlApiHandler, ownerFromClaims } from '../../../lambda/control/http-handlers.js';

// The dashboard API's Lambda entry: the owner comes from the Cognito authorizer's claims, the
// router reaches the capability's service on the owner's own account only, the answers carry the
// dashboard origin's CORS header, and every failure is a problem document.
const context = { awsRequestId: 'aws-req', functionName: 'control', getRemainingTimeInMillis: () => 1000 } as unknown as Context;
const OWNER = { sub: 'c0ffee-sub', email: 'owner@example.com', 'cognito:username': 'owner' };

type EventOverrides = Partial<APIGatewayProxyEvent> & { claims?: Record<string, string> | undefined };

function event(overrides: EventOverrides): APIGatewayProxyEvent {
  const { claims, ...rest } = overrides;
  return {
    httpMethod: 'GET',
    path: '/me',
    resource: '/{proxy+}',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'req-1', ...(claims ? { authorizer: { claims } } : {}) },
    ...rest,
  } as unknown as APIGatewayProxyEvent;
}

/** Services that record what the routes asked of them; the owner's account is acct_1. */
function recordingServices(fail?: Error) {
  const calls: unknown[][] = [];
  const record = (name: string) => (...args: unknown[]) => {
    calls.push([name, ...args]);
    return fail ? Promise.reject(fail) : Promise.resolve({ recorded: name });
  };
  const services = {
    accountService: { createKey: record('createKey'), getAccount: record('getAccount'), setPlan: record('setPlan') },
    usageHistory: { history: record('history') },
    owners: { ensureAccount: (owner: unknown) => (calls.push(['ensureAccount', owner]), Promise.resolve('acct_1')) },
  } as unknown as ControlServices;
  return { services, calls };
}

const bodyOf = (result: { body: string }) => JSON.parse(result.body) as Record<string, unknown>;

describe('control API Lambda handler', () => {
  it('reaches the route with the Cognito owner, the path and the decoded body; answers with CORS, request id and no-store', async () => {
    const { services, calls } = recordingServices();
    const handler = createControlApiHandler(services, { dashboardOrigin: 'https://d111.cloudfront.net' });
    const result = await handler(
      event({
        httpMethod: 'POST',
        path: '/accounts/acct_1/keys',
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{"name":"ci"}').toString('base64'),
        isBase64Encoded: true,
        claims: OWNER,
      }),
      context,
    );
    expect(result.statusCode).toBe(201);
    expect(bodyOf(result)).toEqual({ recorded: 'createKey' });
    expect(result.headers).toMatchObject({
      'Access-Control-Allow-Origin': 'https://d111.cloudfront.net',
      Vary: 'Origin',
      'cache-control': 'no-store',
      'x-request-id': 'req-1',
      'content-type': 'application/json',
    });
    expect(calls).toEqual([
      ['ensureAccount', { kind: 'owner', ownerId: 'c0ffee-sub', email: 'owner@example.com' }],
      ['createKey', 'acct_1', 'ci'],
    ]);
  });

  it('passes the query string to the route', async () => {
    const { services, calls } = recordingServices();
    const result = await createControlApiHandler(services)(
      event({
        path: '/accounts/acct_1/usage/history',
        queryStringParameters: { days: '7', empty: undefined } as unknown as Record<string, string>,
        claims: OWNER,
      }),
      context,
    );
    expect(result.statusCode).toBe(200);
    expect(calls.at(-1)).toEqual(['history', 'acct_1', 7]);
  });

  it('answers another account as absent, and operator routes as forbidden, without calling the service', async () => {
    const { services, calls } = recordingServices();
    const handler = createControlApiHandler(services);
    const other = await handler(event({ path: '/accounts/acct_2', claims: OWNER }), context);
    expect({ status: other.statusCode, ...bodyOf(other) }).toMatchObject({ status: 404, code: 'account_not_found', requestId: 'req-1' });
    const plan = await handler(
      event({ httpMethod: 'PUT', path: '/accounts/acct_1/plan', headers: { 'content-type': 'application/json' }, body: '{"plan":"pro"}', claims: OWNER }),
      context,
    );
    expect({ status: plan.statusCode, code: bodyOf(plan).code }).toEqual({ status: 403, code: 'forbidden' });
    expect(calls.map(([name]) => name)).toEqual(['ensureAccount']);
  });

  it('answers an unknown path 404 and a known path with another method 405 naming the allowed ones', async () => {
    const { services } = recordingServices();
    const handler = createControlApiHandler(services);
    const missing = await handler(event({ path: '/nowhere', claims: OWNER }), context);
    expect({ status: missing.statusCode, code: bodyOf(missing).code }).toEqual({ status: 404, code: 'not_found' });
    const method = await handler(event({ httpMethod: 'PATCH', path: '/accounts/acct_1/keys', claims: OWNER }), context);
    expect({ status: method.statusCode, code: bodyOf(method).code, allow: method.headers?.allow }).toEqual({
      status: 405,
      code: 'method_not_allowed',
      allow: 'GET, POST',
    });
    expect(method.headers?.['content-type']).toBe('application/problem+json');
  });

  it('takes a path segment that is not valid percent-encoding as is: it names no account', async () => {
    const { services } = recordingServices();
    const result = await createControlApiHandler(services)(event({ path: '/accounts/%E0%A4%A/keys', claims: OWNER }), context);
    expect({ status: result.statusCode, ...bodyOf(result) }).toMatchObject({
      status: 404,
      code: 'account_not_found',
      detail: 'No account %E0%A4%A.',
    });
  });

  it('answers 401 without claims (never trusts a request that skipped the authorizer)', async () => {
    const { services, calls } = recordingServices();
    const result = await createControlApiHandler(services)(event({}), context);
    expect(result.statusCode).toBe(401);
    expect(bodyOf(result)).toMatchObject({ status: 401, code: 'unauthorized', requestId: 'req-1' });
    expect(calls).toHaveLength(0);
  });

  it('answers an unexpected failure with a 500 problem that reveals nothing', async () => {
    const { services } = recordingServices(new Error('table Secret-Internal-Name missing'));
    const result = await createControlApiHandler(services)(event({ path: '/accounts/acct_1', claims: { sub: 's' } }), context);
    expect(result.statusCode).toBe(500);
    expect(result.headers?.['content-type']).toBe('application/problem+json');
    expect(bodyOf(result)).toMatchObject({ code: 'internal_error', requestId: 'req-1' });
    expect(result.body).not.toContain('Secret-Internal-Name');
  });

  it('reads the owner from claims: sub is required, email optional', () => {
    const of = (authorizer: unknown) =>
      ownerFromClaims({ requestContext: { authorizer } } as unknown as APIGatewayProxyEvent);
    expect(of({ claims: { sub: 'abc' } })).toEqual({ kind: 'owner', ownerId: 'abc' });
    expect(of({ claims: { email: 'x@example.com' } })).toBeUndefined();
    expect(of(undefined)).toBeUndefined();
  });
});
