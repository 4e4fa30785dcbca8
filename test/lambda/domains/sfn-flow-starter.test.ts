import { createHash } from 'node:crypto';
import { ExecutionAlreadyExists, InvalidName, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SfnDomainFlowStarter } from '../../../lambda/domains/sfn-flow-starter.js';
import {
  DOMAIN_FLOW_DEFAULTS,
  domainFlowExecutionName,
  domainReleaseExecutionName,
} from '../../../contracts/domain-flow.js';

const sfn = mockClient(SFNClient);
const ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:DomainFlow';
const meta = { $metadata: {} };

const starter = () => new SfnDomainFlowStarter({ client: new SFNClient({ region: 'eu-west-1' }), stateMachineArn: ARN });

const inputs = () => sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input);

beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: `${ARN}:x`, startDate: new Date(0) });
});

describe('SfnDomainFlowStarter', () => {
  it('starts a drift check of every live domain: input { drift: {} }, named for the time it was asked', async () => {
    const at = Date.parse('2026-11-22T13:00:00.000Z');
    const started = await new SfnDomainFlowStarter({
      client: new SFNClient({ region: 'eu-west-1', maxAttempts: 1 }),
      stateMachineArn: ARN,
      now: () => at,
    }).checkDrift();
    expect(started).toEqual({ execution: `drift-now-${at.toString(36)}` });
    expect(inputs()).toEqual([{ stateMachineArn: ARN, name: `drift-now-${at.toString(36)}`, input: '{"drift":{}}' }]);
  });

  it('starts the execution named for the domain attempt, with the flow defaults as input', async () => {
    await starter().start({ domain: 'www.example.com', attempt: 3 });
    expect(inputs()).toEqual([
      {
        stateMachineArn: ARN,
        name: 'www_example_com-3',
        input: JSON.stringify({ domain: 'www.example.com', attempt: 3, pollSeconds: 30, watchdogSeconds: 1800 }),
      },
    ]);
    expect(domainFlowExecutionName('www.example.com', 3)).toBe('www_example_com-3');
    expect(DOMAIN_FLOW_DEFAULTS).toEqual({ pollSeconds: 30, watchdogSeconds: 1800 });
  });

  it('names an IDN domain\'s execution by its punycode', async () => {
    await starter().start({ domain: 'xn--bcher-kva.example', attempt: 1 });
    expect(inputs()).toEqual([
      {
        stateMachineArn: ARN,
        name: 'xn--bcher-kva_example-1',
        input: '{"domain":"xn--bcher-kva.example","attempt":1,"pollSeconds":30,"watchdogSeconds":1800}',
      },
    ]);
  });

  it('treats ExecutionAlreadyExists as already started (a repeated start of the same attempt)', async () => {
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: 'Execution Already Exists', ...meta }));
    await expect(starter().start({ domain: 'www.example.com', attempt: 2 })).resolves.toBeUndefined();
    await expect(starter().start({ domain: 'www.example.com', attempt: 2 })).resolves.toBeUndefined();
    expect(inputs()).toHaveLength(2);
  });

  it('rethrows any other error', async () => {
    const invalid = new InvalidName({ message: 'Invalid Name', ...meta });
    sfn.on(StartExecutionCommand).rejects(invalid);
    await expect(starter().start({ domain: 'www.example.com', attempt: 1 })).rejects.toBe(invalid);
  });

  it('leaves throttling to the SDK client\'s retries: a throttle that outlasts them is rethrown after one send', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: {} });
    sfn.on(StartExecutionCommand).rejects(throttled);
    await expect(starter().start({ domain: 'www.example.com', attempt: 1 })).rejects.toBe(throttled);
    expect(inputs()).toHaveLength(1);
  });

  it('starts a release down the same state machine\'s release branch, named once per claim of the domain', async () => {
    const release = {
      domain: 'www.example.com',
      projectId: 'prj_1',
      claimedAt: '2026-01-01T00:00:00.000Z',
      requestedAt: '2026-02-01T10:00:00.000Z',
    };
    await starter().release(release);
    const hash = createHash('sha256').update('www.example.com').digest('hex').slice(0, 8);
    const name = `release-www_example_com-${hash}-${Date.parse(release.claimedAt).toString(36)}`;
    expect(inputs()).toEqual([
      {
        stateMachineArn: ARN,
        name,
        input: JSON.stringify({
          domain: 'www.example.com',
          release: { projectId: 'prj_1', claimedAt: '2026-01-01T00:00:00.000Z', requestedAt: '2026-02-01T10:00:00.000Z' },
        }),
      },
    ]);
    expect(domainReleaseExecutionName('www.example.com', release.claimedAt)).toBe(name);
    // A removal repeated at once (a double click) is the same claim: ExecutionAlreadyExists means started.
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: 'Execution Already Exists', ...meta }));
    await expect(starter().release({ ...release, requestedAt: '2026-02-01T10:00:01.000Z' })).resolves.toBeUndefined();
  });

  it('keeps release names within 80 characters, and apart for long domains that begin alike', () => {
    const base = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(60)}`;
    const one = domainReleaseExecutionName(`${base}.one.example`, '2026-01-01T00:00:00.000Z');
    const two = domainReleaseExecutionName(`${base}.two.example`, '2026-01-01T00:00:00.000Z');
    expect(one.length).toBeLessThanOrEqual(80);
    expect(one).toMatch(/^release-a{50}-[0-9a-f]{8}-[0-9a-z]+$/);
    expect(one).not.toBe(two);
    expect(domainReleaseExecutionName('www.example.com', '2026-03-01T00:00:00.000Z')).not.toBe(
      domainReleaseExecutionName('www.example.com', '2026-01-01T00:00:00.000Z'),
    );
    expect(() => domainReleaseExecutionName('www.example.com', 'yesterday')).toThrow(/not a time/);
  });
});
