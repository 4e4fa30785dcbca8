import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_VALUE } from '../../edge/cloudfront-function.js';
import { domainReleaseExecutionName } from '../../contracts/domain-flow.js';
import { deployPrefix, type ProjectRecord } from '../../lambda/projects/project.js';
import {
  acmFailedCertificate,
  cloudFrontDeleted,
  cloudFrontError,
  cloudFrontTenant,
  dnsConfiguration,
  kvsDescribe,
  kvsValue,
  kvsWritten,
  managedCertificate,
  sfnStarted,
  xmlText,
  xmlTexts,
} from './support/aws-wire.js';
import { controlCall } from './support/control-calls.js';
import { DemoProjectDomains } from './support/domain-calls.js';
import { LOCAL_ACCOUNT, LOCAL_IDS } from './support/local-resources.js';
import { BundleStage } from './support/stage.js';
import { SynthesizedFlow } from './support/state-machine.js';

// The custom-domain lifecycle through bundles only: the control function adds, verifies and
// removes domains (its StartExecution reaches the stub), then the synthesized state machine runs
// with that very input in aws-local-stepfunctions, each Task state invoking its function's bundle:
// DNS and CAA against the dns2 server, DynamoDB on dynalite, CloudFront, ACM and the KeyValueStore
// through the wire-format stub (each answer queued below is the one the real API gives). The drift
// branch has its own file (drift.test.ts).
const HOST = 'edge.platform.example.com';
let stage: BundleStage;
let flow: SynthesizedFlow;
let domains: DemoProjectDomains;
let project: ProjectRecord;
let base: string;
const stateMachineArn = `arn:aws:states:eu-west-1:${LOCAL_ACCOUNT}:stateMachine:${LOCAL_IDS.stateMachineName}`;

beforeAll(async () => {
  stage = await BundleStage.start({
    demoProject: true,
    dns: {
      'old-host.example.net': { A: ['203.0.113.99'] },
      'caa-blocked.test': { CAA: [{ flags: 0, tag: 'issue', value: 'letsencrypt.org' }] },
    },
  });
  expect(stage.declaredEnv('verifyDns').PLATFORM_HOST).toBe(HOST);
  flow = new SynthesizedFlow(stage);
  expect(flow.arn).toBe(stateMachineArn);
  domains = await DemoProjectDomains.of(stage, flow.arn);
  ({ project, base } = domains);
});
afterAll(() => stage?.stop());
afterEach(() => {
  const left = stage.stub.reset();
  expect(left.unexpected, 'calls the test did not expect').toEqual([]);
  expect(left.pending, 'answers queued for calls that never came').toEqual({});
});

const record = (domain: string) => domains.record(domain);
const tenant: DemoProjectDomains['tenant'] = (domain, fields) => domains.tenant(domain, fields);

/** Adds the domain, sets the records the control function asked for, presses Verify; returns the execution input. */
async function addAndVerify(domain: string): Promise<Record<string, unknown>> {
  domains.pointDns(await domains.add(domain));
  return domains.verify(domain);
}

describe('the synthesized domain flow', () => {
  it('runs every flow task function, each state on its own function', () => {
    expect(Object.fromEntries(flow.tasks())).toEqual({
      VerifyDns: 'verifyDns',
      RequestCertificate: 'requestCertificate',
      CheckCertificate: 'checkCertificate',
      Activate: 'activate',
      Diagnose: 'diagnose',
      ReleaseTenant: 'releaseTenant',
      CheckDrift: 'checkDrift',
    });
  });
});

describe('flow task bundles', () => {
  const domain = 'www.bundle-stage.test';

  it('verify → DNS verified → tenant created with a managed certificate → issued → served at the edge: active', async () => {
    const input = await addAndVerify(domain);
    stage.stub.reply('cloudfront', cloudFrontError('EntityNotFound', 404), cloudFrontTenant(tenant(domain), 201));
    stage.stub.reply('cloudfront', cloudFrontTenant(tenant(domain, { domains: [{ domain, status: 'active' }] })));
    stage.stub.reply('cloudfront-keyvaluestore', kvsDescribe(LOCAL_IDS.keyValueStoreArn, 'KV1'), kvsWritten('KV2'));
    const run = await flow.run(input);

    expect(run.status, JSON.stringify(run.tasks, null, 2)).toBe('SUCCEEDED');
    expect(run.tasks.map((t) => [t.state, t.output])).toEqual([
      ['VerifyDns', { verified: true }],
      ['RequestCertificate', { status: 'pending', watchdogExpired: false }],
      ['CheckCertificate', { status: 'issued', watchdogExpired: false }],
      ['Activate', { state: 'active' }],
    ]);
    // Each task's input is the execution's state at that point (ResultPath keeps the earlier results).
    expect(run.tasks[3]?.input).toEqual({
      ...input, dns: { verified: true }, certificate: { status: 'issued', watchdogExpired: false },
    });

    const [read, create, check] = stage.stub.take('cloudfront');
    expect(read).toMatchObject({ method: 'GET', path: `/2020-05-31/distribution-tenant/domain-${domain}` });
    expect(create).toMatchObject({ method: 'POST', path: '/2020-05-31/distribution-tenant' });
    // DISTRIBUTION_ID and CONNECTION_GROUP_ID: the DomainsData stack's outputs, as the task's env has them.
    expect(xmlText(create?.body ?? '', 'DistributionId')).toBe(LOCAL_IDS.distributionId);
    expect(xmlText(create?.body ?? '', 'ConnectionGroupId')).toBe(LOCAL_IDS.connectionGroupId);
    expect(xmlTexts(create?.body ?? '', 'Domain')).toEqual([domain]);
    expect(xmlText(create?.body ?? '', 'ValidationTokenHost')).toBe('cloudfront');
    expect(xmlText(create?.body ?? '', 'Value')).toBe(project.projectId);
    expect(check).toMatchObject({ method: 'GET', path: `/2020-05-31/distribution-tenant/domain-${domain}` });

    const [, putKey] = stage.stub.take('cloudfront-keyvaluestore');
    expect(putKey).toMatchObject({ method: 'PUT', algorithm: 'AWS4-ECDSA-P256-SHA256', region: '*' });
    expect(putKey?.path).toBe(`/key-value-stores/${encodeURIComponent(LOCAL_IDS.keyValueStoreArn)}/keys/${domain}`);
    expect(putKey?.headers.host).toBe(`${LOCAL_ACCOUNT}.localhost:${stage.stub.port}`);
    expect(JSON.parse(putKey?.body ?? '')).toEqual({ Value: EDGE_VALUE.serve(deployPrefix(project.projectId, project.liveDeployId ?? '')) });

    expect(await record(domain)).toMatchObject({ state: 'active', attempt: 1, verifiedAt: expect.any(String), activeAt: expect.any(String) });
  });

  it('verify with a CNAME to another host: dns_failed with the reason and the domain\'s own target', async () => {
    const shop = 'shop.bundle-stage.test';
    const { target } = await domains.add(shop);
    stage.dns.set(shop, { CNAME: 'old-host.example.net' });
    const run = await flow.run(await domains.verify(shop));
    expect(run.status).toBe('SUCCEEDED');
    expect(run.tasks.map((t) => [t.state, t.output])).toEqual([['VerifyDns', { verified: false }]]);
    expect(await record(shop)).toMatchObject({
      state: 'dns_failed',
      failure: { reason: 'cname_mismatch', expected: target, observed: ['CNAME old-host.example.net'] },
    });
  });

  it('a certificate ACM refused (CAA): check reads ACM\'s reason, diagnose finds the CAA record: certificate_delayed', async () => {
    const caa = 'www.caa-blocked.test';
    const certificateArn = `arn:aws:acm:us-east-1:${LOCAL_ACCOUNT}:certificate/0b0e6f1c-5a3d-4c8e-9b7a-3f2e1d0c9b8a`;
    const input = await addAndVerify(caa);
    stage.stub.reply(
      'cloudfront',
      cloudFrontError('EntityNotFound', 404),
      cloudFrontTenant(tenant(caa), 201),
      cloudFrontTenant(tenant(caa)),
      managedCertificate({ arn: certificateArn, status: 'failed', domains: [caa] }),
      dnsConfiguration(caa, 'valid-configuration'),
    );
    stage.stub.reply('acm', acmFailedCertificate(certificateArn, caa, 'CAA_ERROR'));
    const run = await flow.run(input);

    expect(run.status, JSON.stringify(run.tasks, null, 2)).toBe('SUCCEEDED');
    expect(run.tasks.map((t) => t.state)).toEqual(['VerifyDns', 'RequestCertificate', 'CheckCertificate', 'Diagnose']);
    const checked = run.tasks[2]?.output as { status: string; reason: string };
    expect(checked.status).toBe('failed');
    expect(checked.reason).toContain('ACM: CAA_ERROR');
    expect(checked.reason).toContain(`validation of ${caa} failed`);
    expect(checked.reason).toContain('CloudFront DNS check: valid-configuration');

    const [describe] = stage.stub.take('acm');
    // The flow's ACM client is pinned to us-east-1, where CloudFront's certificates live.
    expect(describe).toMatchObject({ method: 'POST', region: 'us-east-1', service: 'acm' });
    expect(describe?.headers['x-amz-target']).toBe('CertificateManager.DescribeCertificate');
    expect(JSON.parse(describe?.body ?? '')).toEqual({ CertificateArn: certificateArn });
    const calls = stage.stub.take('cloudfront').map((r) => `${r.method} ${r.path}`);
    expect(calls.slice(3)).toEqual([
      `GET /2020-05-31/managed-certificate/${tenant(caa).id}`,
      'POST /2020-05-31/verify-dns-configuration',
    ]);

    expect(await record(caa)).toMatchObject({
      state: 'certificate_delayed',
      diagnosis: {
        dnsStillVerifies: true,
        caaAllowsAmazon: false,
        caaRecord: 'caa-blocked.test CAA 0 issue "letsencrypt.org"',
        certificateFailure: checked.reason,
      },
    });
  });

  it('remove: refused at the edge at once, then the release branch disables and (after a refusal) deletes the tenant', async () => {
    stage.stub.reply('cloudfront-keyvaluestore', kvsDescribe(LOCAL_IDS.keyValueStoreArn, 'KV3'), kvsWritten('KV4'));
    stage.stub.reply('states', sfnStarted(`${stateMachineArn.replace(':stateMachine:', ':execution:')}:release`));
    const removed = await controlCall(stage, domains.owner, 'DELETE', `${base}/${domain}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ domain, removed: true });
    const [, refuse] = stage.stub.take('cloudfront-keyvaluestore');
    expect(JSON.parse(refuse?.body ?? '')).toEqual({ Value: EDGE_VALUE.removed() });
    const claimedAt = (await record(domain))?.createdAt as string;
    const input = domains.startedExecution(domainReleaseExecutionName(domain, claimedAt));
    expect(input).toEqual({
      domain,
      release: { projectId: project.projectId, claimedAt, requestedAt: expect.any(String) },
    });

    const live = tenant(domain, { domains: [{ domain, status: 'active' }] });
    stage.stub.reply(
      'cloudfront',
      cloudFrontTenant(live),
      cloudFrontTenant({ ...live, enabled: false, etag: 'E2' }),
      cloudFrontError('ResourceNotDisabled', 409),
      cloudFrontTenant({ ...live, enabled: false, etag: 'E3' }),
      cloudFrontDeleted(),
    );
    stage.stub.reply(
      'cloudfront-keyvaluestore',
      kvsDescribe(LOCAL_IDS.keyValueStoreArn, 'KV5'),
      kvsValue(domain, EDGE_VALUE.removed()),
      kvsWritten('KV6', 0),
    );
    const run = await flow.run(input);

    expect(run.status, JSON.stringify(run.tasks, null, 2)).toBe('SUCCEEDED');
    expect(run.tasks.map((t) => [t.state, t.output])).toEqual([
      ['ReleaseTenant', { status: 'pending', attempts: 1, waitSeconds: 30, expired: false }],
      ['ReleaseTenant', { status: 'released', attempts: 1, waitSeconds: 0, expired: false, edgeEntryDeleted: true }],
    ]);
    expect(run.tasks[1]?.input).toEqual({ ...input, released: run.tasks[0]?.output });

    const calls = stage.stub.take('cloudfront');
    expect(calls.map((r) => `${r.method} ${r.path} ${r.headers['if-match'] ?? ''}`.trim())).toEqual([
      `GET /2020-05-31/distribution-tenant/domain-${domain}`,
      `PUT /2020-05-31/distribution-tenant/${live.id} E1`,
      `DELETE /2020-05-31/distribution-tenant/${live.id} E2`,
      `GET /2020-05-31/distribution-tenant/domain-${domain}`,
      `DELETE /2020-05-31/distribution-tenant/${live.id} E3`,
    ]);
    expect(xmlText(calls[1]?.body ?? '', 'Enabled')).toBe('false');
    const edge = stage.stub.take('cloudfront-keyvaluestore');
    expect(edge.map((r) => `${r.method} ${r.headers['if-match'] ?? ''}`.trim())).toEqual(['GET', 'GET', 'DELETE KV5']);
    expect(await record(domain)).toMatchObject({ state: 'removed' });
  });
});
