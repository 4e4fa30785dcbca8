import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { DRIFT_CHECK_EXECUTION_INPUT, domainsStackName, startDriftCheck } from '../../cli/aws-domain-operations.js';
import { DRIFT_CHECK_INPUT } from '../../lib/constructs/domains/drift-schedule.js';

const cloudformation = mockClient(CloudFormationClient);
const sfn = mockClient(SFNClient);
afterEach(() => {
  cloudformation.reset();
  sfn.reset();
});

const api = { stackName: 'Staging-Api', region: 'eu-west-1', source: 'test', outputs: {}, warnings: [] };
const FLOW = 'arn:aws:states:eu-west-1:123456789012:stateMachine:Flow';

describe('domains check-drift --stack', () => {
  it('starts the flow of <prefix>-Domains with the schedule\'s own drift input', async () => {
    cloudformation.on(DescribeStacksCommand, { StackName: 'Staging-Domains' }).resolves({
      Stacks: [{ StackName: 'Staging-Domains', CreationTime: new Date(), StackStatus: 'UPDATE_COMPLETE', Outputs: [{ OutputKey: 'StateMachineArn', OutputValue: FLOW }] }],
    });
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${FLOW}:drift-operator-1`, startDate: new Date('2026-11-27T15:00:00Z') });
    const started = await startDriftCheck(api, () => new Date('2026-11-27T15:00:00Z'));
    expect(started).toEqual({ execution: `${FLOW}:drift-operator-1`, startedAt: '2026-11-27T15:00:00.000Z' });
    const call = sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input;
    expect(call?.stateMachineArn).toBe(FLOW);
    expect(JSON.parse(call?.input ?? '')).toEqual(DRIFT_CHECK_INPUT);
    expect(DRIFT_CHECK_EXECUTION_INPUT).toEqual(DRIFT_CHECK_INPUT);
  });

  it('refuses a stack that is not an API stack', () => {
    expect(() => domainsStackName('Staging-Data')).toThrow(/<stackPrefix>-Api/);
  });
});
