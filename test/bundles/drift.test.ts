import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EDGE_VALUE } from '../../edge/cloudfront-function.js';
import { domainReleaseExecutionName } from '../../contracts/domain-flow.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { cloudFrontError, cloudFrontTenant, kvsDescribe, kvsWritten, sfnStarted } from './support/aws-wire.js';
import { controlCall } from './support/control-calls.js';
import { DemoProjectDomains } from './support/domain-calls.js';
import { LOCAL_ACCOUNT, LOCAL_CREDENTIALS, LOCAL_IDS } from './support/local-resources.js';
import { BundleStage } from './support/stage.js';
import { SynthesizedFlow } from './support/state-machine.js';

// The domain flow's drift branch through bundles only: the synthesized state machine runs in
// aws-local-stepfunctions with the input the synthesized EventBridge Scheduler schedule sends (its
// Target.Input), its CheckDrift state invoking the CheckDrift bundle with exactly the environment
// the template declares: DNS against the dns2 server, the tables on dynalite, the KeyValueStore and
// Step Functions through the wire-format stub. The live domain is made active the way an owner
// does it: added and verified through the control bundle, the verify branch run on its bundles.
const DOMAIN = 'www.drift-stage.test';
const ELSEWHERE = 'elsewhere.example.net';
let stage: BundleStage;
let flow: SynthesizedFlow;
let domains: DemoProjectDomains;
/** What the schedule starts each execution with, read from the template. */
let scheduled: Record<string, unknown>;
/** DRIFT_GRACE_SECONDS as the template sets it for the CheckDrift function. */
let graceMs: number;
let target: string;

beforeAll(async () => {
  stage = await BundleStage.start({ demoProject: true });
  flow = new SynthesizedFlow(stage);
  scheduled = flow.scheduledInput('Flow/DriftSchedule/Schedule');
  graceMs = Number(stage.declaredEnv('checkDrift').DRIFT_GRACE_SECONDS) * 1000;
  expect(graceMs).toBeGreaterThan(0);
  domains = await DemoProjectDomains.of(stage, flow.arn);

  const added = await domains.add(DOMAIN);
  target = added.target;
  domains.pointDns(added);
  const input = await domains.verify(DOMAIN);
  const live = domains.tenant(DOMAIN, { domains: [{ domain: DOMAIN, status: 'active' }] });
  stage.stub.reply('cloudfront', cloudFrontError('EntityNotFound', 404), cloudFrontTenant(domains.tenant(DOMAIN), 201), cloudFrontTenant(live));
  stage.stub.reply('cloudfront-keyvaluestore', kvsDescribe(LOCAL_IDS.keyValueStoreArn, 'KV1'), kvsWritten('KV2'));
  const run = await flow.run(input);
  expect(run.status, JSON.stringify(run.tasks, null, 2)).toBe('SUCCEEDED');
  expect(await domains.record(DOMAIN)).toMatchObject({ state: 'active', target });
  expect(stage.stub.reset()).toEqual({ unexpected: [], pending: {} });
});
afterAll(() => stage?.stop());
afterEach(() => {
  const left = stage.stub.reset();
  expect(left.unexpected, 'calls the test did not expect').toEqual([]);
  expect(left.pending, 'answers queued for calls that never came').toEqual({});
});

/** One scheduled execution: the drift branch, one CheckDrift round (a single page of live domains here). */
async function scheduledRun(): Promise<Record<string, number | boolean>> {
  const run = await flow.run(scheduled);
  expect(run.status, JSON.stringify({ error: run.error, tasks: run.tasks }, null, 2)).toBe('SUCCEEDED');
  expect(run.tasks.map((t) => [t.state, t.fn])).toEqual([['CheckDrift', 'checkDrift']]);
  // The task's Parameters: the execution's drift, and the state machine's own ARN from the context object.
  expect(run.tasks[0]?.input).toEqual({ drift: scheduled.drift, stateMachineArn: flow.arn });
  // ResultPath $.drift: the execution ends with its input, the task's counts in place of `drift`.
  expect(run.output).toEqual({ ...scheduled, drift: run.tasks[0]?.output });
  return run.tasks[0]?.output as Record<string, number | boolean>;
}

/** The counts of a run over the one live domain: every page done, the findings as given. */
const oneDomain = (findings: Partial<Record<'misconfigured' | 'restored' | 'detached', number>>) => ({
  done: true, checked: 1, misconfigured: 0, restored: 0, detached: 0, lookupFailed: 0, releasesStarted: 0, ...findings,
});

/** The metrics of the CheckDrift bundle's last EMF document (one per invocation, on its stdout). */
async function lastMetrics(): Promise<Record<string, unknown>> {
  const lines = (await stage.lambda('checkDrift')).logs().split('\n').filter((l) => l.includes('"CloudWatchMetrics"'));
  const emf = JSON.parse(lines.at(-1) ?? '{}') as { _aws?: { CloudWatchMetrics: Array<{ Namespace: string; Metrics: Array<{ Name: string }> }> } };
  const [directive] = emf._aws?.CloudWatchMetrics ?? [];
  return {
    namespace: directive?.Namespace,
    ...Object.fromEntries((directive?.Metrics ?? []).map((m) => [m.Name, (emf as Record<string, unknown>)[m.Name]])),
  };
}

const viewOf = async (domain: string) => controlCall(stage, domains.owner, 'GET', `${domains.base}/${domain}`);

describe('the drift branch on the CheckDrift bundle, started with the schedule\'s input', () => {
  it('the schedule\'s input (its Target.Input, the target being this state machine) has `drift`; CheckDrift runs its own bundle', () => {
    expect(scheduled).toHaveProperty('drift');
    expect(Object.fromEntries(flow.tasks())).toMatchObject({ CheckDrift: 'checkDrift' });
  });

  it('an active domain whose CNAME points elsewhere: dns_misconfigured with what was observed and its deadline, still served', async () => {
    stage.dns.set(DOMAIN, { CNAME: ELSEWHERE });
    const before = Date.now();
    const drift = await scheduledRun();
    const after = Date.now();
    expect(drift).toEqual(oneDomain({ misconfigured: 1 }));

    const stored = await domains.record(DOMAIN);
    const since = (stored?.misconfiguration as { since: string } | undefined)?.since ?? '';
    expect(Date.parse(since)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(since)).toBeLessThanOrEqual(after);
    const misconfiguration = {
      reason: 'cname_mismatch',
      observed: [`CNAME ${ELSEWHERE}`],
      expected: target,
      detail: `The CNAME of ${DOMAIN} points to ${ELSEWHERE}, but it must point to ${target}. Change its value to exactly ${target}.`,
      since,
      detachAt: new Date(Date.parse(since) + graceMs).toISOString(),
      checkedAt: since,
    };
    // Still served: it stays live (activeAt), and the edge was not called (the stub would have said so).
    expect(stored).toMatchObject({ state: 'dns_misconfigured', misconfiguration, activeAt: expect.any(String) });
    const view = await viewOf(DOMAIN);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ state: 'dns_misconfigured', target, misconfiguration });
    expect(await lastMetrics()).toEqual({ namespace: 'MessagesPlatform', DomainsMisconfigured: 1 });
  });

  it('after the DNS is fixed, the next scheduled run returns it to active', async () => {
    stage.dns.set(DOMAIN, { CNAME: target });
    expect(await scheduledRun()).toEqual(oneDomain({ restored: 1 }));
    const stored = await domains.record(DOMAIN);
    expect(stored).toMatchObject({ state: 'active', target });
    expect(stored).not.toHaveProperty('misconfiguration');
    const view = await viewOf(DOMAIN);
    expect(view.body).toMatchObject({ state: 'active' });
    expect(view.body).not.toHaveProperty('misconfiguration');
    expect(await lastMetrics()).toEqual({ namespace: 'MessagesPlatform', DomainsRestored: 1 });
  });

  it('past the deadline: detached (refused at the edge, removed) and its tenant\'s release started on this state machine', async () => {
    stage.dns.set(DOMAIN, { CNAME: ELSEWHERE });
    expect(await scheduledRun()).toEqual(oneDomain({ misconfigured: 1 }));
    // The grace period has passed: the stored deadline (and its start) moved into the past.
    const detachAt = Date.now() - 60_000;
    await stage.documents.send(new UpdateCommand({
      TableName: stage.platform.tables.domains,
      Key: { domain: DOMAIN },
      UpdateExpression: 'SET misconfiguration.since = :since, misconfiguration.detachAt = :detachAt',
      ExpressionAttributeValues: { ':since': new Date(detachAt - graceMs).toISOString(), ':detachAt': new Date(detachAt).toISOString() },
    }));
    stage.stub.reply('cloudfront-keyvaluestore', kvsDescribe(LOCAL_IDS.keyValueStoreArn, 'KV3'), kvsWritten('KV4'));
    stage.stub.reply('states', sfnStarted(`${flow.arn.replace(':stateMachine:', ':execution:')}:release`));
    expect(await scheduledRun()).toEqual(oneDomain({ detached: 1 }));

    const stored = await domains.record(DOMAIN);
    expect(stored).toMatchObject({ state: 'removed', detachedAt: expect.any(String) });
    const [describe, refuse] = stage.stub.take('cloudfront-keyvaluestore');
    expect(describe).toMatchObject({ method: 'GET', path: `/key-value-stores/${encodeURIComponent(LOCAL_IDS.keyValueStoreArn)}` });
    expect(refuse).toMatchObject({ method: 'PUT', algorithm: 'AWS4-ECDSA-P256-SHA256', region: '*' });
    expect(refuse?.path).toBe(`/key-value-stores/${encodeURIComponent(LOCAL_IDS.keyValueStoreArn)}/keys/${DOMAIN}`);
    expect(refuse?.headers['if-match']).toBe('KV3');
    expect(refuse?.headers.host).toBe(`${LOCAL_ACCOUNT}.localhost:${stage.stub.port}`);
    expect(JSON.parse(refuse?.body ?? '')).toEqual({ Value: EDGE_VALUE.removed() });

    const [start] = stage.stub.take('states');
    expect(start).toMatchObject({ method: 'POST', region: 'eu-west-1', accessKeyId: LOCAL_CREDENTIALS.AWS_ACCESS_KEY_ID });
    expect(start?.headers['x-amz-target']).toBe('AWSStepFunctions.StartExecution');
    const body = JSON.parse(start?.body ?? '{}') as { stateMachineArn: string; name: string; input: string };
    const claimedAt = stored?.createdAt as string;
    expect(body.stateMachineArn).toBe(flow.arn);
    expect(body.name).toBe(domainReleaseExecutionName(DOMAIN, claimedAt));
    const { project } = domains;
    expect(JSON.parse(body.input)).toEqual({
      domain: DOMAIN,
      release: { projectId: project.projectId, claimedAt, requestedAt: stored?.detachedAt },
    });
    expect((await viewOf(DOMAIN)).status).toBe(404);
    expect(await lastMetrics()).toEqual({ namespace: 'MessagesPlatform', DomainsDetached: 1 });
  });
});
