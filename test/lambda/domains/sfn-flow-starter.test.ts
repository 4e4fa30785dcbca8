import { ExecutionAlreadyExists, InvalidName, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { SfnDomainFlowStarter } from '../../../lambda/domains/sfn-flow-starter.js';
import { DOMAIN_FLOW_DEFAULTS, domainFlowExecutionName } from '../../../lib/constructs/domains/domain-flow-definition.js';

const sfn = mockClient(SFNClient);
const ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:DomainFlow';
const meta = { $metadata: {} };
let delays: number[];

const starter = (options: { pollSeconds?: number; watchdogSeconds?: number } = {}) =>
  new SfnDomainFlowStarter({
    client: new SFNClient({ region: 'eu-west-1', maxAttempts: 1 }),
    stateMachineArn: ARN,
    ...options,
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5,
  });

const inputs = () => sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input);

beforeEach(() => {
  sfn.reset();
  delays = [];
  sfn.on(StartExecutionCommand).resolves({ executionArn: `${ARN}:x`, startDate: new Date(0) });
});

describe('SfnDomainFlowStarter', () => {
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

  it('passes the configured poll interval and watchdog (tests shorten the 30 minutes)', async () => {
    await starter({ pollSeconds: 1, watchdogSeconds: 5 }).start({ domain: 'xn--bcher-kva.example', attempt: 1 });
    expect(inputs()).toEqual([
      {
        stateMachineArn: ARN,
        name: 'xn--bcher-kva_example-1',
        input: '{"domain":"xn--bcher-kva.example","attempt":1,"pollSeconds":1,"watchdogSeconds":5}',
      },
    ]);
  });

  it('treats ExecutionAlreadyExists as already started (a repeated start of the same attempt)', async () => {
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: 'Execution Already Exists', ...meta }));
    await expect(starter().start({ domain: 'www.example.com', attempt: 2 })).resolves.toBeUndefined();
    await expect(starter().start({ domain: 'www.example.com', attempt: 2 })).resolves.toBeUndefined();
    expect(inputs()).toHaveLength(2);
    expect(delays).toEqual([]);
  });

  it('rethrows any other error', async () => {
    const invalid = new InvalidName({ message: 'Invalid Name', ...meta });
    sfn.on(StartExecutionCommand).rejects(invalid);
    await expect(starter().start({ domain: 'www.example.com', attempt: 1 })).rejects.toBe(invalid);
  });

  it('retries a throttled start with the house backoff', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: {} });
    sfn.on(StartExecutionCommand).rejectsOnce(throttled).resolves({ executionArn: `${ARN}:x`, startDate: new Date(0) });
    await starter().start({ domain: 'www.example.com', attempt: 1 });
    expect(inputs()).toHaveLength(2);
    expect(delays).toEqual([250]);
  });
});
