import { createHash } from 'node:crypto';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFile, StartedDeployBody } from '../../contracts/deploys.js';
import { DEPLOY_HISTORY } from '../../lambda/projects/deploy-service.js';
import { LOCAL_S3, LOCAL_SITE_BUCKET } from '../../local/emulators.js';
import { controlFetch, deployOverHttp, htmlFile } from '../support/deploys.js';
import { startTestDns, type TestDnsServer } from '../support/dns-server.js';
import { addDomain, control, edge, PLATFORM_ZONE, runDriftCheck, setRecords, verifyUntil } from '../support/domains.js';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Issue 25 items 1-3 through the control API and the local platform: deploys by manifest with
// presigned PUTs to s3rver, the limits, finalize checking the bucket, history, rollback at the edge,
// pruning, rename, delete with its domains released and its slug held, and the drift sweep starting
// a release its removal could not start.
const DAY = 86_400_000;
let dns: TestDnsServer;
let platform: TestPlatform;
let s3: S3Client;
let accountId: string;

const api = () => controlFetch(platform.controlUrl);
const sha = (body: Uint8Array) => createHash('sha256').update(body).digest('hex');
const file = (path: string, text: string): LocalFile => ({ path, body: new TextEncoder().encode(text) });

async function newProject(slug: string, name?: string) {
  const created = await control(platform, 'POST', `/accounts/${accountId}/projects`, { slug, ...(name ? { name } : {}) });
  if (created.status !== 201) throw new Error(`create ${slug}: ${JSON.stringify(created.body)}`);
  return { projectId: created.body.projectId as string, path: `/accounts/${accountId}/projects/${created.body.projectId as string}` };
}

async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: LOCAL_SITE_BUCKET, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key as string);
}

beforeAll(async () => {
  dns = await startTestDns(PLATFORM_ZONE);
  platform = await startTestPlatform({
    dnsServers: [dns.address],
    domainFlow: { pollMs: 20, releaseWaitMs: 20, tenantDeleteRefusals: 0, driftCheckIntervalMs: 0 },
  });
  s3 = new S3Client({ ...LOCAL_S3, endpoint: platform.endpoints.s3 });
  accountId = platform.demoAccounts.pro.accountId;
});
afterAll(async () => {
  s3?.destroy();
  await platform?.stop();
  await dns?.stop();
});

describe('deploys', () => {
  it('uploads only what the bucket lacks, and serves the deploy once finalized', async () => {
    const { projectId, path } = await newProject('deploy-site');
    const first = await deployOverHttp(platform.controlUrl, path, [
      file('index.html', '<h1>v1</h1>'),
      file('app.js', 'console.log(1);'),
      file('copy/app.js', 'console.log(1);'),
    ]);
    // Two distinct contents (app.js twice), both new.
    expect(first).toMatchObject({ uploadedFiles: 2, skipped: 0 });
    expect((await edge(platform, 'deploy-site.platform.example.com')).body).toBe('<h1>v1</h1>');
    expect((await edge(platform, 'deploy-site.platform.example.com', '/copy/app.js')).body).toBe('console.log(1);');

    const changed = file('index.html', '<h1>v2, longer</h1>');
    const second = await deployOverHttp(platform.controlUrl, path, [changed, file('app.js', 'console.log(1);'), file('copy/app.js', 'console.log(1);')]);
    expect(second).toMatchObject({ uploadedFiles: 1, uploadedBytes: changed.body.byteLength, skipped: 2 });
    expect((await edge(platform, 'deploy-site.platform.example.com')).body).toBe('<h1>v2, longer</h1>');
    const listed = await control(platform, 'GET', `${path}/deploys`);
    expect(listed.body.deploys).toMatchObject([
      { deployId: second.deployId, state: 'succeeded', live: true, by: 'operator', fileCount: 3, uploadCount: 1, uploadBytes: 19 },
      { deployId: first.deployId, state: 'succeeded', live: false, fileCount: 3, uploadCount: 2 },
    ]);
    expect(await keysUnder(`projects/${projectId}/content/`)).toHaveLength(3);
  });

  it('refuses each limit and a bad manifest before anything is uploaded, with the figures', async () => {
    const { path } = await newProject('limits-site');
    const entry = (i: number, size = 1) => ({ path: `f${i}.txt`, sha256: sha(new Uint8Array([i % 256, i >> 8])), size });
    const tooMany = await api()('POST', `${path}/deploys`, { files: Array.from({ length: 10_001 }, (_, i) => entry(i)) });
    expect(tooMany).toMatchObject({ status: 413, body: { code: 'too_many_files', detail: 'A deploy has at most 10000 files; this one has 10001.' } });
    const bigFile = await api()('POST', `${path}/deploys`, { files: [entry(1, 25 * 1024 * 1024 + 1)] });
    expect(bigFile).toMatchObject({ status: 413, body: { code: 'file_too_large' } });
    const bigDeploy = await api()('POST', `${path}/deploys`, { files: Array.from({ length: 5 }, (_, i) => entry(i, 24 * 1024 * 1024)) });
    expect(bigDeploy).toMatchObject({ status: 413, body: { code: 'deploy_too_large', detail: 'This deploy is 120 MB; a deploy may be at most 100 MB.' } });
    const twice = await api()('POST', `${path}/deploys`, { files: [entry(1), entry(1)] });
    expect(twice).toMatchObject({ status: 400, body: { code: 'invalid_request', detail: 'f1.txt is listed twice.' } });
    const badHash = await api()('POST', `${path}/deploys`, { files: [{ path: 'a.txt', sha256: 'abc', size: 1 }] });
    expect(badHash).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    const escape = await api()('POST', `${path}/deploys`, { files: [{ ...entry(1), path: '../x.html' }] });
    expect(escape).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    expect((await control(platform, 'GET', `${path}/deploys`)).body.deploys).toEqual([]);
  });

  it('finalizes only when every content is in the bucket with its size (the client is not taken at its word)', async () => {
    const { path } = await newProject('finalize-site');
    const page = htmlFile('<h1>checked</h1>');
    const started = await api()('POST', `${path}/deploys`, { files: [{ path: 'index.html', sha256: sha(page.body), size: page.body.byteLength }] });
    const { deploy, uploads } = started.body as unknown as StartedDeployBody;
    const early = await api()('POST', `${path}/deploys/${deploy.deployId}/finalize`);
    expect(early).toMatchObject({ status: 409, body: { code: 'files_missing', missing: [sha(page.body)], uploads: [{ sha256: sha(page.body) }] } });
    // A body of another length (s3rver does not check the signed length; the finalize does).
    const upload = uploads[0];
    if (!upload) throw new Error('no upload');
    await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: new TextEncoder().encode('short') });
    expect((await api()('POST', `${path}/deploys/${deploy.deployId}/finalize`)).body.code).toBe('files_missing');
    await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: page.body });
    const done = await api()('POST', `${path}/deploys/${deploy.deployId}/finalize`);
    expect(done).toMatchObject({ status: 200, body: { deployId: deploy.deployId, state: 'succeeded' } });
    expect((await edge(platform, 'finalize-site.platform.example.com')).body).toBe('<h1>checked</h1>');
    // A second deploy while none is in progress is fine; one while this one would be is refused.
    const next = await api()('POST', `${path}/deploys`, { files: [{ path: 'index.html', sha256: sha(page.body), size: page.body.byteLength }] });
    expect(next.status).toBe(201);
    const racing = await api()('POST', `${path}/deploys`, { files: [{ path: 'index.html', sha256: sha(page.body), size: page.body.byteLength }] });
    expect(racing).toMatchObject({ status: 409, body: { code: 'deploy_in_progress' } });
  });

  it('rolls back to an earlier deploy: the edge serves it from the next request, nothing uploaded', async () => {
    const { path } = await newProject('rollback-site');
    const v1 = await deployOverHttp(platform.controlUrl, path, '<h1>one</h1>');
    await deployOverHttp(platform.controlUrl, path, '<h1>two</h1>');
    expect((await edge(platform, 'rollback-site.platform.example.com')).body).toBe('<h1>two</h1>');
    const before = (await s3.send(new ListObjectsV2Command({ Bucket: LOCAL_SITE_BUCKET, Prefix: 'projects/' }))).KeyCount;
    const rolled = await control(platform, 'POST', `${path}/deploys/${v1.deployId}/rollback`);
    expect(rolled).toMatchObject({ status: 200, body: { deployId: v1.deployId, live: true } });
    expect((await edge(platform, 'rollback-site.platform.example.com')).body).toBe('<h1>one</h1>');
    expect((await s3.send(new ListObjectsV2Command({ Bucket: LOCAL_SITE_BUCKET, Prefix: 'projects/' }))).KeyCount).toBe(before);
    expect((await control(platform, 'GET', path)).body.liveDeployId).toBe(v1.deployId);
    expect((await control(platform, 'POST', `${path}/deploys/dep_missing/rollback`))).toMatchObject({ status: 404, body: { code: 'deploy_not_found' } });
  });

  it(`keeps the last ${DEPLOY_HISTORY} deploys and prunes older ones with the contents no kept deploy references`, async () => {
    const { projectId, path } = await newProject('prune-site');
    const shared = file('shared.css', 'body { color: teal }');
    const ids: string[] = [];
    for (let i = 0; i < DEPLOY_HISTORY + 2; i++) {
      ids.push((await deployOverHttp(platform.controlUrl, path, [file('index.html', `<h1>${i}</h1>`), shared])).deployId);
    }
    const listed = (await control(platform, 'GET', `${path}/deploys`)).body.deploys as Array<{ deployId: string }>;
    expect(listed.map((d) => d.deployId)).toEqual(ids.slice(2).reverse());
    const contents = await keysUnder(`projects/${projectId}/content/`);
    expect(contents).toHaveLength(DEPLOY_HISTORY + 1);
    expect(contents).toContain(`projects/${projectId}/content/${sha(shared.body)}`);
    expect(contents).not.toContain(`projects/${projectId}/content/${sha(file('', '<h1>0</h1>').body)}`);
    expect(await keysUnder(`projects/${projectId}/deploys/${ids[0]}/`)).toEqual([]);
    expect(await keysUnder(`projects/${projectId}/deploys/${ids[2]}/`)).toHaveLength(2);
    expect(await keysUnder(`projects/${projectId}/manifests/`)).toHaveLength(DEPLOY_HISTORY);
  }, 60_000);
});

describe('project lifecycle', () => {
  it('renames a project; its slug and address stay', async () => {
    const { path } = await newProject('rename-site', 'Old name');
    const renamed = await control(platform, 'PATCH', path, { name: '  New name ' });
    expect(renamed).toMatchObject({ status: 200, body: { name: 'New name', slug: 'rename-site', defaultDomain: 'rename-site.platform.example.com' } });
    expect((await control(platform, 'PATCH', path, { name: ' ' }))).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
  });

  it('deletes a project with a live custom domain: released, files gone, slug held 30 days', async () => {
    const { projectId, path } = await newProject('doomed-site');
    await deployOverHttp(platform.controlUrl, path, '<h1>doomed</h1>');
    const added = await addDomain(platform, path, 'www.doomed.test');
    setRecords(dns, added.records);
    expect((await verifyUntil(platform, path, 'www.doomed.test', ['active', 'dns_failed'])).state).toBe('active');
    expect((await edge(platform, 'www.doomed.test')).body).toBe('<h1>doomed</h1>');

    const deleted = await control(platform, 'DELETE', path);
    expect(deleted).toMatchObject({
      status: 200,
      body: { projectId, deleted: true, releasedDomains: ['www.doomed.test'], slugHeldUntil: new Date(platform.clock.now() + 30 * DAY).toISOString() },
    });
    expect((await edge(platform, 'www.doomed.test')).status).toBe(404);
    expect((await edge(platform, 'doomed-site.platform.example.com')).status).toBe(404);
    expect(await keysUnder(`projects/${projectId}/`)).toEqual([]);
    expect((await control(platform, 'GET', path))).toMatchObject({ status: 404, body: { code: 'project_not_found' } });
    await platform.domainFlow.settle();
    await eventually(async () => (platform.certificates.tenantOf('www.doomed.test') === undefined ? true : undefined), 10_000, 25);

    const reused = await control(platform, 'POST', `/accounts/${accountId}/projects`, { slug: 'doomed-site' });
    expect(reused).toMatchObject({ status: 409, body: { code: 'slug_held', heldUntil: deleted.body.slugHeldUntil } });
    platform.clock.advance(30 * DAY + 1_000);
    expect((await control(platform, 'POST', `/accounts/${accountId}/projects`, { slug: 'doomed-site' })).status).toBe(201);
  }, 30_000);

  it('a removal whose release could not be started is started by the drift sweep', async () => {
    const { path } = await newProject('sweep-site');
    await deployOverHttp(platform.controlUrl, path, '<h1>sweep</h1>');
    const added = await addDomain(platform, path, 'www.sweep.test');
    setRecords(dns, added.records);
    expect((await verifyUntil(platform, path, 'www.sweep.test', ['active', 'dns_failed'])).state).toBe('active');

    const flow = platform.domainFlow;
    const release = flow.release.bind(flow);
    flow.release = () => Promise.reject(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    try {
      expect((await control(platform, 'DELETE', `${path}/domains/www.sweep.test`)).status).toBe(200);
    } finally {
      flow.release = release;
    }
    expect((await edge(platform, 'www.sweep.test')).status).toBe(404);
    await platform.domainFlow.settle();
    expect(platform.certificates.tenantOf('www.sweep.test')).toBe('enabled');

    await runDriftCheck(platform);
    await eventually(async () => (platform.certificates.tenantOf('www.sweep.test') === undefined ? true : undefined), 10_000, 25);
  }, 30_000);
});
