import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_VALUE } from '../../edge/cloudfront-function.js';
import { deployPrefix } from '../../lambda/projects/project.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { apiGatewayKeyCreated, apiGatewayPlanKeyCreated, kvsDescribe, kvsWritten, s3Put } from './support/aws-wire.js';
import { controlCall, ownerClaims } from './support/control-calls.js';
import { authorizerEvent } from './support/events.js';
import { LOCAL_CREDENTIALS, LOCAL_IDS } from './support/local-resources.js';
import { BundleStage } from './support/stage.js';

// The dashboard's API (the control function's bundle) with the Cognito authorizer's claims:
// DynamoDB on dynalite; API Gateway, S3 and the KeyValueStore through the wire-format stub, whose
// record of the requests shows what the bundle built from its environment.
let stage: BundleStage;

beforeAll(async () => {
  stage = await BundleStage.start({ demoProject: true });
});
afterAll(() => stage?.stop());
afterEach(() => {
  const left = stage.stub.reset();
  expect(left.unexpected, 'calls the test did not expect').toEqual([]);
  expect(left.pending, 'answers queued for calls that never came').toEqual({});
});

const signedByTheFunction = { accessKeyId: LOCAL_CREDENTIALS.AWS_ACCESS_KEY_ID };

describe('control function bundle', () => {
  it('GET /me: a first sign-in links the owner to a new Free account in dynalite, with its own API Gateway key in the Free usage plan', async () => {
    const claims = ownerClaims('first.owner@example.com', '1f6c1a52-5b7e-4a4e-9d55-0c3c1f2e9a01');
    // Limits belong to the account: its one internal API Gateway key is made with it.
    const gatewayKey = { id: 'f3p8x1m6n2', value: 'RnJlZUFjY291bnRLZXlWYWx1ZTAxMjM0NTY3ODlh' };
    stage.stub.reply('apigateway', apiGatewayKeyCreated(gatewayKey.id, gatewayKey.value, 'internal'), apiGatewayPlanKeyCreated(gatewayKey.id, 'internal'));
    const answer = await controlCall(stage, claims, 'GET', '/me');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      ownerId: claims.sub,
      email: 'first.owner@example.com',
      account: { plan: 'free', name: 'first.owner@example.com' },
    });
    // DASHBOARD_ORIGIN is the distribution's domain, resolved from the template's Fn::Join.
    expect(answer.headers.get('access-control-allow-origin')).toBe(`https://${LOCAL_IDS.dashboardDomain}`);
    const accountId = (answer.body.account as { accountId: string }).accountId;
    const { tables } = stage.platform;
    const link = await stage.documents.send(new GetCommand({ TableName: tables.owners, Key: { ownerId: claims.sub } }));
    expect(link.Item).toMatchObject({ ownerId: claims.sub, accountId, email: 'first.owner@example.com' });
    const account = await stage.documents.send(new GetCommand({ TableName: tables.accounts, Key: { accountId } }));
    expect(account.Item).toMatchObject({ accountId, plan: 'free', gatewayKeyId: gatewayKey.id });

    const [createKey, bind] = stage.stub.take('apigateway');
    expect(createKey).toMatchObject({ method: 'POST', path: '/apikeys', region: 'eu-west-1', ...signedByTheFunction });
    expect(JSON.parse(createKey?.body ?? '')).toMatchObject({ name: `internal-${accountId}`, enabled: true, tags: { accountId } });
    // USAGE_PLAN_IDS is a Fn::Join of three stack outputs: the Free one is where the account's key goes.
    expect(bind).toMatchObject({ method: 'POST', path: `/usageplans/${LOCAL_IDS.usagePlans.free}/keys` });
    expect(JSON.parse(bind?.body ?? '')).toEqual({ keyId: gatewayKey.id, keyType: 'API_KEY' });
  });

  it('POST /accounts/{id}/keys: a Business key is metered on its account\'s API Gateway key, with no API Gateway call', async () => {
    const { tables } = stage.platform;
    const account = await stage.documents.send(new GetCommand({ TableName: tables.accounts, Key: { accountId: 'acct_demo_business' } }));
    const gatewayKeyValue = (account.Item as { gatewayKeyValue?: string } | undefined)?.gatewayKeyValue;
    expect(gatewayKeyValue, 'the demo account has its internal key').toBeTruthy();
    const answer = await controlCall(stage, ownerClaims('business@demo.local'), 'POST', '/accounts/acct_demo_business/keys', { name: 'bundle key' });
    expect(answer.status).toBe(201);
    const { secret, key } = answer.body as { secret: string; key: { keyId: string } };
    expect(stage.stub.take('apigateway')).toEqual([]);

    // The authorizer bundle meters the new key on the account's API Gateway key, copied into the key record.
    const authorization = await stage.invoke<APIGatewayAuthorizerResult>(
      'authorizer',
      authorizerEvent({ method: 'POST', resource: '/messages', path: '/messages', headers: { Authorization: `Bearer ${secret}` } }),
    );
    expect(authorization.principalId).toBe(key.keyId);
    expect(authorization.context).toMatchObject({ principal: 'key', accountId: 'acct_demo_business', plan: 'business' });
    expect(authorization.usageIdentifierKey).toBe(gatewayKeyValue);
  });

  it('POST .../deploys: files go to the stack\'s site bucket in S3, then the edge serves the new version (KeyValueStore)', async () => {
    const [project] = await stage.platform.projects.listProjects('acct_demo_pro');
    if (!project) throw new Error('the Pro demo account has no demo project');
    const html = '<!doctype html><title>Bundle stage</title><h1>Deployed by the control bundle</h1>';
    stage.stub.reply('s3', s3Put('9a0364b9e99bb480dd25e1f0284c8555'));
    stage.stub.reply('cloudfront-keyvaluestore', kvsDescribe(LOCAL_IDS.keyValueStoreArn, 'KV1'), kvsWritten('KV2'));
    const answer = await controlCall(stage, ownerClaims('pro@demo.local'), 'POST', `/accounts/acct_demo_pro/projects/${project.projectId}/deploys`, {
      files: [{ path: 'index.html', content: Buffer.from(html).toString('base64') }],
    });
    expect(answer.status).toBe(201);
    const deployId = (answer.body as { liveDeployId: string }).liveDeployId;
    const prefix = deployPrefix(project.projectId, deployId);

    const [put] = stage.stub.take('s3');
    // SITE_BUCKET resolved from the DomainsData stack's output; path-style against the local endpoint.
    expect(put).toMatchObject({ method: 'PUT', path: `/${LOCAL_IDS.siteBucket}/${prefix}/index.html`, body: html, ...signedByTheFunction });
    expect(put?.headers['content-type']).toMatch(/^text\/html/);

    const [describe, putKey] = stage.stub.take('cloudfront-keyvaluestore');
    const arn = encodeURIComponent(LOCAL_IDS.keyValueStoreArn);
    expect(describe).toMatchObject({ method: 'GET', path: `/key-value-stores/${arn}`, algorithm: 'AWS4-ECDSA-P256-SHA256', region: '*' });
    expect(putKey).toMatchObject({ method: 'PUT', path: `/key-value-stores/${arn}/keys/demo.${stage.platform.config.platform.domain}` });
    expect(putKey?.headers['if-match']).toBe('KV1');
    expect(JSON.parse(putKey?.body ?? '')).toEqual({ Value: EDGE_VALUE.serve(prefix) });
  });
});
