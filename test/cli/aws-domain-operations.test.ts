import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { ListExecutionsCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DRIFT_CHECK_EXECUTION_INPUT,
  domainRunKind,
  releaseDomainTenant,
  reverifyDomain,
  showDomain,
  startDriftCheck,
} from '../../cli/aws-domain-operations.js';
import { siblingStackName } from '../../cli/deployed-stack.js';
import { domainFlowExecutionName, domainReleaseExecutionName } from '../../contracts/domain-flow.js';
import { DRIFT_CHECK_INPUT } from '../../lib/constructs/domains/drift-schedule.js';
import { deployedApi, describedStack } from '../support/deployed-stacks.js';

const cloudformation = mockClient(CloudFormationClient);
const sfn = mockClient(SFNClient);
const documents = mockClient(DynamoDBDocumentClient);
afterEach(() => {
  cloudformation.reset();
  sfn.reset();
  documents.reset();
});

const api = { stackName: 'Staging-Api', region: 'eu-west-1', source: 'test', outputs: {}, warnings: [] };
const FLOW = 'arn:aws:states:eu-west-1:123456789012:stateMachine:Flow';

describe('domains check-drift --stack', () => {
  it('starts the flow of <prefix>-Domains with the schedule\'s own drift input', async () => {
    cloudformation.on(DescribeStacksCommand, { StackName: 'Staging-Domains' }).resolves(describedStack('Staging-Domains', { StateMachineArn: FLOW }));
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${FLOW}:drift-operator-1`, startDate: new Date('2026-11-27T15:00:00Z') });
    const started = await startDriftCheck(api, () => new Date('2026-11-27T15:00:00Z'));
    expect(started).toEqual({ execution: `${FLOW}:drift-operator-1`, startedAt: '2026-11-27T15:00:00.000Z' });
    const call = sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input;
    expect(call?.stateMachineArn).toBe(FLOW);
    expect(JSON.parse(call?.input ?? '')).toEqual(DRIFT_CHECK_INPUT);
    expect(DRIFT_CHECK_EXECUTION_INPUT).toEqual(DRIFT_CHECK_INPUT);
  });

  it('refuses a stack that is not an API stack', () => {
    expect(() => siblingStackName({ stackName: 'Staging-Data' }, 'Domains')).toThrow(/<stackPrefix>-Api/);
  });
});

describe('domains show and release --stack', () => {
  const record = {
    domain: 'www.example.com',
    display: 'www.example.com',
    projectId: 'prj_1',
    accountId: 'acct_1',
    apex: false,
    state: 'removed',
    records: [],
    target: 'tok.edge.platform.example.com',
    attempt: 2,
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-26T10:00:00.000Z',
  };

  function stacks() {
    cloudformation.on(DescribeStacksCommand, { StackName: 'Staging-Domains' }).resolves(describedStack('Staging-Domains', { StateMachineArn: FLOW }));
    cloudformation.on(DescribeStacksCommand, { StackName: 'Staging-DomainsData' }).resolves(
      describedStack('Staging-DomainsData', { DomainsTableName: 'Domains', ProjectsTableName: 'Projects', PlatformHost: 'edge.platform.example.com' }),
    );
    documents.on(GetCommand, { TableName: 'Domains', Key: { domain: 'www.example.com' } }).resolves({ Item: record });
    documents.on(GetCommand, { TableName: 'Projects', Key: { projectId: 'prj_1' } }).resolves({ Item: { projectId: 'prj_1', slug: 'shop' } });
  }

  it('shows the record and only this domain\'s executions, newest first, across pages', async () => {
    stacks();
    const attempt = domainFlowExecutionName('www.example.com', 2);
    const release = domainReleaseExecutionName('www.example.com', record.createdAt);
    sfn.on(ListExecutionsCommand, { stateMachineArn: FLOW, nextToken: undefined }).resolves({
      executions: [
        { executionArn: 'a1', stateMachineArn: FLOW, name: release, status: 'FAILED', startDate: new Date('2026-11-26T10:00:00Z'), stopDate: new Date('2026-11-27T10:00:00Z') },
        { executionArn: 'a2', stateMachineArn: FLOW, name: domainFlowExecutionName('shop.example.com', 1), status: 'SUCCEEDED', startDate: new Date() },
        { executionArn: 'a3', stateMachineArn: FLOW, name: domainFlowExecutionName('www.example.com.evil', 1), status: 'SUCCEEDED', startDate: new Date() },
        { executionArn: 'a5', stateMachineArn: FLOW, name: domainFlowExecutionName('www.example.com-2', 1), status: 'SUCCEEDED', startDate: new Date() },
      ],
      nextToken: 'page2',
    });
    sfn.on(ListExecutionsCommand, { stateMachineArn: FLOW, nextToken: 'page2' }).resolves({
      executions: [{ executionArn: 'a4', stateMachineArn: FLOW, name: attempt, status: 'SUCCEEDED', startDate: new Date('2026-11-21T10:00:00Z') }],
    });
    const shown = await showDomain(api, 'www.example.com');
    expect(shown.domain).toMatchObject({ domain: 'www.example.com', state: 'removed', accountId: 'acct_1', target: 'tok.edge.platform.example.com', attempt: 2 });
    expect(shown.history).toEqual([
      { name: release, kind: 'release', status: 'FAILED', startedAt: '2026-11-26T10:00:00.000Z', stoppedAt: '2026-11-27T10:00:00.000Z' },
      { name: attempt, kind: 'verification', status: 'SUCCEEDED', startedAt: '2026-11-21T10:00:00.000Z' },
    ]);
    expect(shown.historyTruncated).toBe(false);
  });

  it('refuses an unknown domain with a clear error', async () => {
    stacks();
    documents.on(GetCommand, { TableName: 'Domains', Key: { domain: 'nope.example.com' } }).resolves({});
    await expect(showDomain(api, 'nope.example.com')).rejects.toThrow(/no domain nope\.example\.com/);
  });

  it('starts the release branch again with the removal\'s input, a fresh requestedAt and a new release-shaped name', async () => {
    stacks();
    sfn.on(StartExecutionCommand).resolves({ executionArn: 'x', startDate: new Date() });
    const at = new Date('2026-11-27T15:30:00Z');
    const started = await releaseDomainTenant(api, 'www.example.com', () => at);
    const call = sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input;
    expect(call?.stateMachineArn).toBe(FLOW);
    expect(JSON.parse(call?.input ?? '')).toEqual({
      domain: 'www.example.com',
      release: { projectId: 'prj_1', claimedAt: record.createdAt, requestedAt: at.toISOString() },
    });
    expect(call?.name).toBe(domainReleaseExecutionName('www.example.com', at.toISOString()));
    expect(call?.name).not.toBe(domainReleaseExecutionName('www.example.com', record.createdAt));
    expect(domainRunKind('www.example.com', started.execution)).toBe('release');
  });

  it('releases only a removed domain', async () => {
    stacks();
    documents.on(GetCommand, { TableName: 'Domains', Key: { domain: 'www.example.com' } }).resolves({ Item: { ...record, state: 'active' } });
    await expect(releaseDomainTenant(api, 'www.example.com')).rejects.toThrow(/is active, not removed/);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });
});

describe('domains verify --stack', () => {
  it('runs the owner\'s Re-verify for them: the next attempt on the record, then the flow for that attempt', async () => {
    cloudformation.on(DescribeStacksCommand, { StackName: 'Staging-Domains' }).resolves(describedStack('Staging-Domains', { StateMachineArn: FLOW }));
    cloudformation.on(DescribeStacksCommand, { StackName: 'Staging-DomainsData' }).resolves(describedStack('Staging-DomainsData', {
      DomainsTableName: 'Domains',
      ProjectsTableName: 'Projects',
      PlatformHost: 'edge.platform.example.com',
      KeyValueStoreArn: 'arn:aws:cloudfront::123456789012:key-value-store/kvs',
    }));
    const record = {
      domain: 'www.example.com', display: 'www.example.com', projectId: 'prj_1', accountId: 'acct_1', apex: false,
      state: 'dns_failed', records: [], target: 'tok.edge.platform.example.com', ownershipToken: 'tok', attempt: 3,
      createdAt: '2026-11-20T10:00:00.000Z', updatedAt: '2026-11-26T10:00:00.000Z',
    };
    documents.on(GetCommand).resolves({});
    documents.on(GetCommand, { TableName: 'Domains', Key: { domain: 'www.example.com' } }).resolves({ Item: record });
    documents.on(GetCommand, { TableName: 'Projects', Key: { projectId: 'prj_1' } }).resolves({ Item: { projectId: 'prj_1', accountId: 'acct_1', slug: 'shop' } });
    documents.on(UpdateCommand).resolves({});
    sfn.on(StartExecutionCommand).resolves({ executionArn: 'x', startDate: new Date() });

    const view = await reverifyDomain(deployedApi, 'www.example.com');
    expect(view).toMatchObject({ domain: 'www.example.com', state: 'verifying', attempt: 4 });
    const update = documents.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(update?.TableName).toBe('Domains');
    const start = sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input;
    expect(start?.name).toBe(domainFlowExecutionName('www.example.com', 4));
    expect(JSON.parse(start?.input ?? '')).toMatchObject({ domain: 'www.example.com', attempt: 4 });
  });
});
