import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  awsError,
  describeStackOutputs,
  readOutputsFile,
  REQUIRED_OUTPUT_KEYS,
  resolveRegion,
} from '../../cli/aws-control-plane.js';
import { run } from '../../cli/commands.js';
import { CliError } from '../../cli/errors.js';
import { loadConfig } from '../../lib/config/index.js';
import { createTables, LOCAL_TABLE_NAMES, type RunningService, startDynamoDb } from '../../local/emulators.js';

const OUTPUTS = {
  ApiUrl: 'https://abc123.execute-api.eu-west-1.amazonaws.com/v1/',
  ApiKeysTableName: 'Api-Keys-1',
  AccountsTableName: 'Api-Accounts-1',
  RateLimitsTableName: 'Api-RateLimits-1',
  RestApiId: 'abc123',
  StageName: 'v1',
  FreeUsagePlanId: 'up-free',
  ProUsagePlanId: 'up-pro',
  BusinessUsagePlanId: 'up-business',
};

const EXPECTED = {
  apiKeysTableName: 'Api-Keys-1',
  accountsTableName: 'Api-Accounts-1',
  rateLimitsTableName: 'Api-RateLimits-1',
  restApiId: 'abc123',
  stageName: 'v1',
  usagePlanIds: { free: 'up-free', pro: 'up-pro', business: 'up-business' },
};

const dir = mkdtempSync(join(tmpdir(), 'cli-outputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function outputsFile(content: unknown): string {
  const file = join(dir, `outputs-${++fileCount}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function thrown(fn: () => unknown): CliError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return error as CliError;
  }
  throw new Error('expected a CliError');
}

async function rejected(promise: Promise<unknown>): Promise<CliError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

describe('outputs from a cdk deploy --outputs-file', () => {
  it('takes the API stack of the file (the data stack has none of the outputs)', () => {
    const file = outputsFile({ 'MessagesPlatform-Data': {}, 'MessagesPlatform-Api': OUTPUTS });
    expect(readOutputsFile(file)).toEqual({ stackName: 'MessagesPlatform-Api', ...EXPECTED });
  });

  it('takes a stack of any prefix when it is the only one with the outputs', () => {
    const file = outputsFile({ 'Staging-Data': { Foo: 'x' }, 'Staging-Api': OUTPUTS });
    expect(readOutputsFile(file).stackName).toBe('Staging-Api');
  });

  it('takes the stack named by --stack; several API stacks without it are a usage error', () => {
    const file = outputsFile({
      'Staging-Api': { ...OUTPUTS, RestApiId: 'staging' },
      'Prod-Api': { ...OUTPUTS, RestApiId: 'prod' },
    });
    expect(readOutputsFile(file, 'Prod-Api').restApiId).toBe('prod');
    const error = thrown(() => readOutputsFile(file));
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('several API stacks (Staging-Api, Prod-Api)');
    expect(error.hint).toBe('choose one with --stack NAME');

    const missing = thrown(() => readOutputsFile(file, 'Dev-Api'));
    expect(missing.message).toBe(`the outputs file ${file} has no stack Dev-Api`);
    expect(missing.hint).toBe('it has: Staging-Api, Prod-Api');
  });

  it('names every missing output', () => {
    const { RestApiId: _r, StageName: _s, ProUsagePlanId: _p, ...partial } = OUTPUTS;
    const file = outputsFile({ 'MessagesPlatform-Api': partial });
    const error = thrown(() => readOutputsFile(file));
    expect(error.message).toBe(`stack MessagesPlatform-Api (${file}) lacks the outputs RestApiId, StageName, ProUsagePlanId`);
    expect(error.exitCode).toBe(1);
    expect(error.code).toBe('missing_outputs');

    const empty = thrown(() => readOutputsFile(outputsFile({ 'MessagesPlatform-Data': { QueueUrl: 'q' } })));
    expect(empty.message).toContain(`has the outputs ${REQUIRED_OUTPUT_KEYS.join(', ')}`);
  });

  it('says when the file is missing or not JSON', () => {
    expect(thrown(() => readOutputsFile(join(dir, 'nope.json'))).message).toBe(
      `cannot read the outputs file ${join(dir, 'nope.json')} (ENOENT)`,
    );
    const notJson = outputsFile('{ "MessagesPlatform-Api": ');
    expect(thrown(() => readOutputsFile(notJson)).message).toBe(`the outputs file ${notJson} is not JSON`);
    const list = outputsFile([OUTPUTS]);
    expect(thrown(() => readOutputsFile(list)).message).toBe(`the outputs file ${list} is not a JSON object of stacks`);
  });
});

describe('outputs from CloudFormation DescribeStacks', () => {
  const cloudFormation = mockClient(CloudFormationClient);
  afterEach(() => cloudFormation.reset());

  it('reads the stack\'s outputs', async () => {
    cloudFormation.on(DescribeStacksCommand, { StackName: 'MessagesPlatform-Api' }).resolves({
      Stacks: [
        {
          StackName: 'MessagesPlatform-Api',
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: Object.entries(OUTPUTS).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
        },
      ],
    });
    const client = new CloudFormationClient({ region: 'eu-west-1' });
    expect(await describeStackOutputs(client, 'MessagesPlatform-Api', 'eu-west-1')).toEqual({
      stackName: 'MessagesPlatform-Api',
      ...EXPECTED,
    });
    expect(cloudFormation.commandCalls(DescribeStacksCommand)).toHaveLength(1);
    expect(cloudFormation.commandCalls(DescribeStacksCommand)[0]?.args[0].input).toEqual({ StackName: 'MessagesPlatform-Api' });
  });

  it('names the outputs a stack lacks', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'Old-Api',
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: [
            { OutputKey: 'ApiKeysTableName', OutputValue: 'k' },
            { OutputKey: 'AccountsTableName', OutputValue: 'a' },
            { OutputKey: 'RateLimitsTableName', OutputValue: 'r' },
          ],
        },
      ],
    });
    const error = await rejected(describeStackOutputs(new CloudFormationClient({ region: 'eu-west-1' }), 'Old-Api', 'eu-west-1'));
    expect(error.message).toBe(
      'stack Old-Api (DescribeStacks in eu-west-1) lacks the outputs RestApiId, StageName, FreeUsagePlanId, ProUsagePlanId, BusinessUsagePlanId',
    );
  });

  it('a stack that does not exist', async () => {
    cloudFormation.on(DescribeStacksCommand).rejects(
      Object.assign(new Error('Stack with id Nope-Api does not exist'), { name: 'ValidationError', $metadata: {} }),
    );
    const error = await rejected(describeStackOutputs(new CloudFormationClient({ region: 'eu-west-1' }), 'Nope-Api', 'eu-west-1'));
    expect(error.message).toBe('stack Nope-Api does not exist in eu-west-1');
    expect(error.exitCode).toBe(1);
    expect(error.hint).toContain('--region');
  });

  it('missing credentials and denied calls are clear errors', async () => {
    cloudFormation.on(DescribeStacksCommand).rejectsOnce(
      Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }),
    ).rejectsOnce(
      Object.assign(new Error('User is not authorized to perform: cloudformation:DescribeStacks'), { name: 'AccessDenied', $metadata: {} }),
    );
    const client = new CloudFormationClient({ region: 'eu-west-1' });
    const noCredentials = await rejected(describeStackOutputs(client, 'S', 'eu-west-1'));
    expect(noCredentials.message).toBe('no AWS credentials: Could not load credentials from any providers');
    expect(noCredentials.hint).toContain('AWS_PROFILE');
    const denied = await rejected(describeStackOutputs(client, 'S', 'eu-west-1'));
    expect(denied.message).toMatch(/^AWS denied the call \(AccessDenied\)/);
  });

  it('through the CLI: --stack (default MessagesPlatform-Api) and the missing outputs as exit 1', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [{ StackName: 'MessagesPlatform-Api', StackStatus: 'CREATE_COMPLETE', CreationTime: new Date(), Outputs: [] }],
    });
    let stderr = '';
    const code = await run(['usage', '--account', 'acct_x', '--stack', 'MessagesPlatform-Api', '--region', 'eu-west-1'], {
      stdout: { write: () => true },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: {},
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/^error: stack MessagesPlatform-Api \(DescribeStacks in eu-west-1\) lacks the outputs ApiKeysTableName, /);
    expect(cloudFormation.commandCalls(DescribeStacksCommand)[0]?.args[0].input).toEqual({ StackName: 'MessagesPlatform-Api' });
  });
});

describe('region', () => {
  const config = loadConfig({ platform: { region: 'eu-central-1' } });
  it('is --region, else AWS_REGION, else the config\'s', () => {
    expect(resolveRegion('us-east-2', { AWS_REGION: 'ap-south-1' }, config)).toBe('us-east-2');
    expect(resolveRegion(undefined, { AWS_REGION: 'ap-south-1' }, config)).toBe('ap-south-1');
    expect(resolveRegion(undefined, {}, config)).toBe('eu-central-1');
    expect(thrown(() => resolveRegion('Europe', {}, config)).exitCode).toBe(2);
  });
});

describe('AWS errors', () => {
  it('become CliErrors with hints; other errors pass through', () => {
    const throttled = awsError(Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException', $metadata: {} }), 'eu-west-1');
    expect(throttled).toBeInstanceOf(CliError);
    expect((throttled as CliError).message).toBe('AWS throttled the call (TooManyRequestsException): Rate exceeded');
    const table = awsError(Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException', $metadata: {} }), 'eu-west-1');
    expect((table as CliError).hint).toBe('check --region (now eu-west-1) and the stack outputs');
    const bug = new TypeError('x is undefined');
    expect(awsError(bug, 'eu-west-1')).toBe(bug);
  });
});

describe('the control plane on a deployed stack (DynamoDB on dynalite, API Gateway mocked)', () => {
  const apiGateway = mockClient(APIGatewayClient);
  let dynamodb: RunningService;
  let file: string;

  beforeAll(async () => {
    dynamodb = await startDynamoDb();
    await createTables(dynamodb.endpoint);
    file = outputsFile({
      'Test-Data': {},
      'Test-Api': {
        ...OUTPUTS,
        ApiKeysTableName: LOCAL_TABLE_NAMES.apiKeys,
        AccountsTableName: LOCAL_TABLE_NAMES.accounts,
        RateLimitsTableName: LOCAL_TABLE_NAMES.rateLimits,
      },
    });
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await dynamodb?.stop();
  });

  async function cli(...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await run([...argv, '--outputs', file, '--region', 'us-east-1', '--json'], {
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: {},
    });
    return { code, stdout, stderr, body: JSON.parse(stdout) as Record<string, unknown> };
  }

  it('creates an account and a key bound to its plan\'s usage plan, then revokes it', async () => {
    // The SDK reads these itself: the endpoint of DynamoDB, and credentials the emulator accepts.
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamodb.endpoint);
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'gk-1' });
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({});
    apiGateway.on(DeleteApiKeyCommand).resolves({});

    const account = await cli('accounts', 'create', '--name', 'Deployed', '--plan', 'pro');
    expect(account.code, account.stderr).toBe(0);
    const accountId = account.body.accountId as string;
    expect(account.body).toMatchObject({ plan: 'pro', limits: { perMinute: 300, perDay: 10000 } });

    const created = await cli('keys', 'create', '--account', accountId, '--name', 'prod');
    expect(created.code, created.stderr).toBe(0);
    const key = created.body.key as { keyId: string };
    expect(apiGateway.commandCalls(CreateApiKeyCommand)[0]?.args[0].input).toMatchObject({ name: `internal-${key.keyId}` });
    expect(apiGateway.commandCalls(CreateUsagePlanKeyCommand)[0]?.args[0].input).toEqual({
      usagePlanId: 'up-pro',
      keyId: 'gk-1',
      keyType: 'API_KEY',
    });

    const listed = await cli('keys', 'list', '--account', accountId);
    expect(listed.body).toEqual({ keys: [expect.objectContaining({ keyId: key.keyId, status: 'active' })] });

    const revoked = await cli('keys', 'revoke', '--account', accountId, '--key', key.keyId);
    expect(revoked.body).toMatchObject({ keyId: key.keyId, status: 'revoked' });
    expect(apiGateway.commandCalls(DeleteApiKeyCommand)[0]?.args[0].input).toEqual({ apiKey: 'gk-1' });

    const unknown = await cli('accounts', 'show', '--account', 'acct_nope');
    expect(unknown.code).toBe(1);
    expect(unknown.body).toEqual({ error: { message: 'No account acct_nope.', code: 'account_not_found', status: 404, exitCode: 1 } });
  });
});
