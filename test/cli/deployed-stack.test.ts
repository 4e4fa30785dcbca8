import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { awsError } from '../../cli/aws-errors.js';
import { run } from '../../cli/commands.js';
import {
  operatorOutputs,
  describeStack,
  openDeployedStack,
  operatorRegion,
  publishedConfig,
  readOutputsFile,
  REQUIRED_OUTPUT_KEYS,
  sdkProfileRegion,
} from '../../cli/deployed-stack.js';
import { CliError } from '../../cli/errors.js';
import { loadConfig } from '../../lib/config/index.js';
import { PLATFORM_CONFIG_OUTPUT } from '../../lib/stacks/api-stack-outputs.js';

/** A deployment with overrides: its published config differs from lib/config's defaults. */
const DEPLOYED_CONFIG = loadConfig({
  platform: { region: 'eu-central-1' },
  plans: { pro: { limits: { perMinute: 123, perDay: 4_567 } } },
});

const OUTPUTS = {
  ApiUrl: 'https://abc123.execute-api.eu-central-1.amazonaws.com/v1/',
  ApiKeysTableName: 'Api-Keys-1',
  AccountsTableName: 'Api-Accounts-1',
  RateLimitsTableName: 'Api-RateLimits-1',
  RestApiId: 'abc123',
  StageName: 'v1',
  FreeUsagePlanId: 'up-free',
  ProUsagePlanId: 'up-pro',
  BusinessUsagePlanId: 'up-business',
  [PLATFORM_CONFIG_OUTPUT]: JSON.stringify(DEPLOYED_CONFIG),
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

const noProfile = async () => undefined;
const stackOf = (outputs: Record<string, string>) => ({ stackName: 'S-Api', source: 'f.json', outputs });

describe('outputs from a cdk deploy --outputs-file', () => {
  it('takes the API stack of the file (the data stack has none of the outputs)', () => {
    const file = outputsFile({ 'MessagesPlatform-Data': {}, 'MessagesPlatform-Api': OUTPUTS });
    const found = readOutputsFile(file);
    expect(found).toEqual({ stackName: 'MessagesPlatform-Api', outputs: OUTPUTS });
    expect(operatorOutputs({ ...found, source: file })).toEqual(EXPECTED);
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
    expect(readOutputsFile(file, 'Prod-Api').outputs.RestApiId).toBe('prod');
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
    const error = thrown(() => operatorOutputs({ ...readOutputsFile(file), source: file }));
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

describe('the published config (output PlatformConfig)', () => {
  it('is the deployment\'s own config, overrides included, checked with the lib/config schema', () => {
    const config = publishedConfig(stackOf(OUTPUTS));
    expect(config).toEqual(DEPLOYED_CONFIG);
    expect(config.plans.pro.limits).toEqual({ perMinute: 123, perDay: 4_567 });
    expect(config).not.toEqual(loadConfig());
  });

  it('missing, is an error that names it and says to redeploy', () => {
    const { [PLATFORM_CONFIG_OUTPUT]: _config, ...older } = OUTPUTS;
    const error = thrown(() => publishedConfig(stackOf(older)));
    expect(error.message).toBe('stack S-Api (f.json) lacks the output PlatformConfig, the deployment\'s platform config');
    expect(error.code).toBe('missing_outputs');
    expect(error.exitCode).toBe(1);
    expect(error.hint).toMatch(/^deploy the API stack again with this version of the platform \(npx cdk deploy --all\)/);
  });

  it('not JSON, or not a valid config, is an error naming what is wrong', () => {
    const notJson = thrown(() => publishedConfig(stackOf({ ...OUTPUTS, [PLATFORM_CONFIG_OUTPUT]: '{"plans":' })));
    expect(notJson.message).toBe('the PlatformConfig output of stack S-Api (f.json) is not JSON');
    expect(notJson.code).toBe('bad_platform_config');

    const bad = structuredClone(DEPLOYED_CONFIG) as unknown as { plans: { free: { limits: { perMinute: number } } } };
    bad.plans.free.limits.perMinute = 0;
    const invalid = thrown(() =>
      publishedConfig(stackOf({ ...OUTPUTS, [PLATFORM_CONFIG_OUTPUT]: JSON.stringify(bad) })),
    );
    expect(invalid.message).toBe(
      'the PlatformConfig output of stack S-Api (f.json) is not a valid platform config: plans.free.limits.perMinute must be greater than 0',
    );
    expect(invalid.code).toBe('bad_platform_config');
  });
});

describe('outputs from CloudFormation DescribeStacks', () => {
  const cloudFormation = mockClient(CloudFormationClient);
  afterEach(() => cloudFormation.reset());

  const answer = (outputs: Record<string, string>, StackName = 'MessagesPlatform-Api') => ({
    Stacks: [
      {
        StackName,
        StackStatus: 'UPDATE_COMPLETE' as const,
        CreationTime: new Date(),
        Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
      },
    ],
  });

  it('reads the stack\'s outputs', async () => {
    cloudFormation.on(DescribeStacksCommand, { StackName: 'MessagesPlatform-Api' }).resolves(answer(OUTPUTS));
    expect(await describeStack('MessagesPlatform-Api', 'eu-central-1')).toEqual({
      stackName: 'MessagesPlatform-Api',
      region: 'eu-central-1',
      source: 'DescribeStacks in eu-central-1',
      outputs: OUTPUTS,
      warnings: [],
    });
    expect(cloudFormation.commandCalls(DescribeStacksCommand).map((c) => c.args[0].input)).toEqual([{ StackName: 'MessagesPlatform-Api' }]);
  });

  it('names the outputs a stack lacks', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves(answer({ ApiKeysTableName: 'k', AccountsTableName: 'a', RateLimitsTableName: 'r' }, 'Old-Api'));
    const stack = await describeStack('Old-Api', 'eu-west-1');
    expect(thrown(() => operatorOutputs(stack)).message).toBe(
      'stack Old-Api (DescribeStacks in eu-west-1) lacks the outputs RestApiId, StageName, FreeUsagePlanId, ProUsagePlanId, BusinessUsagePlanId',
    );
  });

  it('a stack that does not exist', async () => {
    cloudFormation.on(DescribeStacksCommand).rejects(
      Object.assign(new Error('Stack with id Nope-Api does not exist'), { name: 'ValidationError', $metadata: {} }),
    );
    const error = await rejected(describeStack('Nope-Api', 'eu-west-1'));
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
    const noCredentials = await rejected(describeStack('S', 'eu-west-1'));
    expect(noCredentials.message).toBe('no AWS credentials: Could not load credentials from any providers');
    expect(noCredentials.hint).toContain('AWS_PROFILE');
    const denied = await rejected(describeStack('S', 'eu-west-1'));
    expect(denied.message).toMatch(/^AWS denied the call \(AccessDenied\)/);
  });

  it('through the CLI: --stack (default MessagesPlatform-Api) and the missing outputs as exit 1', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves(answer({}));
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

  it('through the CLI: a stack deployed before the config was published is refused, naming the output', async () => {
    const { [PLATFORM_CONFIG_OUTPUT]: _config, ...older } = OUTPUTS;
    cloudFormation.on(DescribeStacksCommand).resolves(answer(older));
    let stderr = '';
    const code = await run(['plans', 'set', '--account', 'acct_x', '--plan', 'pro', '--stack', 'MessagesPlatform-Api', '--region', 'eu-central-1'], {
      stdout: { write: () => true },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      env: {},
    });
    expect(code).toBe(1);
    expect(stderr).toBe(
      'error: stack MessagesPlatform-Api (DescribeStacks in eu-central-1) lacks the output PlatformConfig, the deployment\'s platform config\n' +
      'hint: deploy the API stack again with this version of the platform (npx cdk deploy --all): the CLI takes plans, limits and backstops from the deployment, never from its own defaults\n',
    );
  });
});

describe('region', () => {
  it('is --region, else AWS_REGION, else AWS_DEFAULT_REGION, else the AWS profile\'s', async () => {
    const profile = async () => 'ap-northeast-1';
    expect(await operatorRegion('us-east-2', { AWS_REGION: 'ap-south-1' }, profile)).toEqual({ region: 'us-east-2', from: '--region' });
    expect(await operatorRegion(undefined, { AWS_REGION: 'ap-south-1', AWS_DEFAULT_REGION: 'sa-east-1' }, profile)).toEqual({
      region: 'ap-south-1',
      from: 'AWS_REGION',
    });
    expect(await operatorRegion(undefined, { AWS_DEFAULT_REGION: 'sa-east-1' }, profile)).toEqual({ region: 'sa-east-1', from: 'AWS_DEFAULT_REGION' });
    expect(await operatorRegion(undefined, { AWS_PROFILE: 'ops' }, profile)).toEqual({ region: 'ap-northeast-1', from: 'the AWS profile ops' });
    expect(await operatorRegion(undefined, {}, noProfile)).toBeUndefined();
    await expect(operatorRegion('Europe', {}, profile)).rejects.toMatchObject({ exitCode: 2, message: '--region must be an AWS region such as eu-west-1, got "Europe"' });
  });

  it('reads the profile\'s region from the AWS config file, as the SDK does (no call to AWS)', async () => {
    const config = join(dir, 'aws-config');
    writeFileSync(config, '[default]\nregion = ca-central-1\n[profile ops]\nregion = ap-southeast-2\n');
    vi.stubEnv('AWS_CONFIG_FILE', config);
    vi.stubEnv('AWS_REGION', undefined);
    vi.stubEnv('AWS_PROFILE', undefined);
    try {
      expect(await sdkProfileRegion({ AWS_PROFILE: 'ops' })).toBe('ap-southeast-2');
      expect(await sdkProfileRegion({})).toBe('ca-central-1');
      // The SDK caches each file it parsed: a profile without a region, in a file of its own.
      const noRegion = join(dir, 'aws-config-no-region');
      writeFileSync(noRegion, '[default]\noutput = json\n');
      vi.stubEnv('AWS_CONFIG_FILE', noRegion);
      expect(await sdkProfileRegion({})).toBeUndefined();
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('with --outputs and no region given, is the one the deployment\'s published config names', async () => {
    const file = outputsFile({ 'MessagesPlatform-Api': OUTPUTS });
    const stack = await openDeployedStack({ outputsFile: file, env: {}, profileRegion: noProfile });
    expect(stack).toMatchObject({ stackName: 'MessagesPlatform-Api', region: 'eu-central-1', warnings: [] });
  });

  it('with --outputs, a region given otherwise wins, with a warning when it is not the deployment\'s', async () => {
    const file = outputsFile({ 'MessagesPlatform-Api': OUTPUTS });
    expect(await openDeployedStack({ outputsFile: file, env: { AWS_REGION: 'us-west-2' }, profileRegion: noProfile })).toMatchObject({
      region: 'us-west-2',
      warnings: ['the deployment\'s platform.region is eu-central-1, but the CLI uses us-west-2 (from AWS_REGION)'],
    });
    expect(await openDeployedStack({ outputsFile: file, region: 'eu-central-1', env: {}, profileRegion: noProfile })).toMatchObject({
      region: 'eu-central-1',
      warnings: [],
    });
  });

  it('with --stack and no region anywhere, is a usage error with a hint, before any AWS call', async () => {
    const cloudFormation = mockClient(CloudFormationClient);
    try {
      const error = await rejected(openDeployedStack({ stack: 'Prod-Api', env: {}, profileRegion: noProfile }));
      expect(error.message).toBe('no AWS region to look up the stack Prod-Api in');
      expect(error.exitCode).toBe(2);
      expect(error.hint).toBe(
        'pass --region, or set AWS_REGION (or a region in your AWS profile); with --outputs FILE the deployment\'s own region is used',
      );
      expect(cloudFormation.calls()).toEqual([]);
    } finally {
      cloudFormation.restore();
    }
  });

  it('with --stack, DescribeStacks runs in the profile\'s region when that is the one given', async () => {
    const cloudFormation = mockClient(CloudFormationClient);
    try {
      cloudFormation.on(DescribeStacksCommand).resolves({
        Stacks: [{ StackName: 'Prod-Api', StackStatus: 'UPDATE_COMPLETE', CreationTime: new Date(), Outputs: [] }],
      });
      const stack = await openDeployedStack({ stack: 'Prod-Api', env: { AWS_PROFILE: 'ops' }, profileRegion: async () => 'ap-southeast-2' });
      expect(stack).toMatchObject({ region: 'ap-southeast-2', source: 'DescribeStacks in ap-southeast-2' });
      expect(await cloudFormation.calls()[0]?.thisValue.config.region()).toBe('ap-southeast-2');
    } finally {
      cloudFormation.restore();
    }
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
