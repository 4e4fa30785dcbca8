import { createHash } from 'node:crypto';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_VALUE } from '../../edge/cloudfront-function.js';
import { deployPrefix } from '../../lambda/projects/project.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { apiGatewayKeyCreated, apiGatewayPlanKeyCreated, kvsDescribe, kvsWritten, s3Copied, s3Listed, s3Object, s3Put } from './support/aws-wire.js';
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

  it('deploys: the manifest lists the bucket and presigns a PUT; finalize lists again, copies, then the edge serves it (KeyValueStore)', async () => {
    const [project] = await stage.platform.projects.listProjects('acct_demo_pro');
    if (!project) throw new Error('the Pro demo account has no demo project');
    const html = '<!doctype html><title>Bundle stage</title><h1>Deployed by the control bundle</h1>';
    const sha256 = createHash('sha256').update(html).digest('hex');
    const files = [{ path: 'index.html', sha256, size: Buffer.byteLength(html) }];
    const base = `/accounts/acct_demo_pro/projects/${project.projectId}`;
    const contentKey = `projects/${project.projectId}/content/${sha256}`;

    stage.stub.reply('s3', s3Listed([]), s3Put('m1'));
    const started = await controlCall(stage, ownerClaims('pro@demo.local'), 'POST', `${base}/deploys`, { files });
    expect(started.status).toBe(201);
    type Started = { deploy: { deployId: string; by: string }; uploads: Array<{ url: string }> };
    const { deploy, uploads } = started.body as Started;
    expect(deploy.by).toBe('pro@demo.local');
    const [list, manifest] = stage.stub.take('s3');
    // SITE_BUCKET resolved from the DomainsData stack's output; path-style against the local endpoint.
    expect(list).toMatchObject({ method: 'GET', path: `/${LOCAL_IDS.siteBucket}/`, ...signedByTheFunction });
    expect(list?.query.get('list-type')).toBe('2');
    expect(list?.query.get('prefix')).toBe(`projects/${project.projectId}/content/`);
    expect(manifest).toMatchObject({ method: 'PUT', path: `/${LOCAL_IDS.siteBucket}/projects/${project.projectId}/manifests/${deploy.deployId}.json` });
    expect(JSON.parse(manifest?.body ?? '')).toEqual([{ ...files[0], contentType: 'text/html; charset=utf-8' }]);
    // The presigned PUT (no call made): the content key, signed by the function's credentials, length and hash pinned.
    const url = new URL(uploads[0]?.url ?? '');
    expect(url.pathname).toBe(`/${LOCAL_IDS.siteBucket}/${contentKey}`);
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(new RegExp(`^${LOCAL_CREDENTIALS.AWS_ACCESS_KEY_ID}/`));
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;host;x-amz-checksum-sha256');

    stage.stub.reply('s3', s3Object(manifest?.body ?? ''), s3Listed([{ key: contentKey, size: files[0]?.size ?? 0 }]), s3Copied());
    stage.stub.reply('cloudfront-keyvaluestore', kvsDescribe(LOCAL_IDS.keyValueStoreArn, 'KV1'), kvsWritten('KV2'));
    const finalized = await controlCall(stage, ownerClaims('pro@demo.local'), 'POST', `${base}/deploys/${deploy.deployId}/finalize`);
    expect(finalized).toMatchObject({ status: 200, body: { deployId: deploy.deployId, state: 'succeeded' } });
    const prefix = deployPrefix(project.projectId, deploy.deployId);
    const [getManifest, listAgain, copy] = stage.stub.take('s3');
    expect(getManifest).toMatchObject({ method: 'GET', path: `/${LOCAL_IDS.siteBucket}/projects/${project.projectId}/manifests/${deploy.deployId}.json` });
    expect(listAgain).toMatchObject({ method: 'GET', path: `/${LOCAL_IDS.siteBucket}/` });
    expect(copy).toMatchObject({ method: 'PUT', path: `/${LOCAL_IDS.siteBucket}/${prefix}/index.html`, ...signedByTheFunction });
    expect(copy?.headers['x-amz-copy-source']).toBe(`${LOCAL_IDS.siteBucket}/${contentKey}`);
    expect(copy?.headers['content-type']).toMatch(/^text\/html/);

    const [describe, putKey] = stage.stub.take('cloudfront-keyvaluestore');
    const arn = encodeURIComponent(LOCAL_IDS.keyValueStoreArn);
    expect(describe).toMatchObject({ method: 'GET', path: `/key-value-stores/${arn}`, algorithm: 'AWS4-ECDSA-P256-SHA256', region: '*' });
    expect(putKey).toMatchObject({ method: 'PUT', path: `/key-value-stores/${arn}/keys/demo.${stage.platform.config.platform.domain}` });
    expect(putKey?.headers['if-match']).toBe('KV1');
    expect(JSON.parse(putKey?.body ?? '')).toEqual({ Value: EDGE_VALUE.serve(prefix) });
  });
});
