import { readFileSync } from 'node:fs';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { ConfigError, type PlatformConfig, validateConfig } from '../lib/config/index.js';
import { PLATFORM_CONFIG_OUTPUT } from '../lib/stacks/api-stack-outputs.js';
import { awsError } from './aws-errors.js';
import { CliError, parseJson, usageError } from './errors.js';

/** `<stackPrefix>-Api` with the default prefix (lib/app.ts). */
const DEFAULT_API_STACK_NAME = 'MessagesPlatform-Api';

/** The outputs of the API stack the platform needs (lib/constructs/messages/messages-api.ts). */
export const REQUIRED_OUTPUT_KEYS = [
  'ApiKeysTableName',
  'AccountsTableName',
  'RateLimitsTableName',
  'RestApiId',
  'StageName',
  'FreeUsagePlanId',
  'ProUsagePlanId',
  'BusinessUsagePlanId',
] as const;

export interface DeployedStack {
  readonly stackName: string;
  readonly region: string;
  /** The outputs file, or DescribeStacks in a region (for messages). */
  readonly source: string;
  readonly outputs: Readonly<Record<string, string>>;
  /** Printed on stderr, e.g. a region other than the deployment's. */
  readonly warnings: readonly string[];
}

/** Picks the platform's outputs out of a stack's outputs; names every missing one. */
export function operatorOutputs(stack: Pick<DeployedStack, 'stackName' | 'source' | 'outputs'>) {
  const raw = stack.outputs;
  const missing = REQUIRED_OUTPUT_KEYS.filter((key) => typeof raw[key] !== 'string' || raw[key].length === 0);
  if (missing.length > 0) {
    throw new CliError(`stack ${stack.stackName} (${stack.source}) lacks the output${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`, {
      code: 'missing_outputs',
      hint: 'is it the API stack (<stackPrefix>-Api), deployed from this version of the platform? run cdk deploy again',
    });
  }
  const get = (key: (typeof REQUIRED_OUTPUT_KEYS)[number]) => raw[key] as string;
  return {
    apiKeysTableName: get('ApiKeysTableName'),
    accountsTableName: get('AccountsTableName'),
    rateLimitsTableName: get('RateLimitsTableName'),
    restApiId: get('RestApiId'),
    stageName: get('StageName'),
    usagePlanIds: { free: get('FreeUsagePlanId'), pro: get('ProUsagePlanId'), business: get('BusinessUsagePlanId') },
  };
}

const REDEPLOY_HINT =
  'deploy the API stack again with this version of the platform (npx cdk deploy --all): the CLI takes plans, limits and backstops from the deployment, never from its own defaults';

/** The deployment's config (output PlatformConfig), checked as at synth: never the CLI's own defaults. */
export function publishedConfig(stack: Pick<DeployedStack, 'stackName' | 'source' | 'outputs'>): PlatformConfig {
  const raw = stack.outputs[PLATFORM_CONFIG_OUTPUT];
  const where = `stack ${stack.stackName} (${stack.source})`;
  const refused = (message: string, code: string, cause?: unknown) =>
    new CliError(message, { code, cause, hint: REDEPLOY_HINT });
  if (typeof raw !== 'string' || raw.length === 0) {
    throw refused(`${where} lacks the output ${PLATFORM_CONFIG_OUTPUT}, the deployment's platform config`, 'missing_outputs');
  }
  const parsed = parseJson(raw, () =>
    refused(`the ${PLATFORM_CONFIG_OUTPUT} output of ${where} is not JSON`, 'bad_platform_config'));
  try {
    return validateConfig(parsed);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const issues = error.issues.join('; ');
    throw refused(`the ${PLATFORM_CONFIG_OUTPUT} output of ${where} is not a valid platform config: ${issues}`, 'bad_platform_config', error);
  }
}

const REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d$/;

type Env = Readonly<Record<string, string | undefined>>;

/** The region of the operator's AWS profile (AWS_PROFILE, else default) as the SDK reads it, through a client that never calls AWS. */
export async function sdkProfileRegion(env: Env): Promise<string | undefined> {
  const client = new CloudFormationClient(env.AWS_PROFILE ? { profile: env.AWS_PROFILE } : {});
  try {
    return await client.config.region();
  } catch {
    return undefined;
  } finally {
    client.destroy();
  }
}

/** `--region`, else AWS_REGION, else AWS_DEFAULT_REGION, else the AWS profile's: never a hard-coded default. */
export async function operatorRegion(
  flag: string | undefined,
  env: Env,
  profileRegion = sdkProfileRegion,
): Promise<{ region: string; from: string } | undefined> {
  if (flag !== undefined) {
    if (!REGION_PATTERN.test(flag)) throw usageError(`--region must be an AWS region such as eu-west-1, got "${flag}"`);
    return { region: flag, from: '--region' };
  }
  for (const name of ['AWS_REGION', 'AWS_DEFAULT_REGION'] as const) {
    if (env[name]) return { region: env[name], from: name };
  }
  const profile = await profileRegion(env);
  return profile ? { region: profile, from: `the AWS profile ${env.AWS_PROFILE || 'default'}` } : undefined;
}

export interface OpenStackOptions {
  /** The API stack's name, for DescribeStacks (or to pick a stack in `outputsFile`). */
  readonly stack?: string;
  /** A `cdk deploy --outputs-file` JSON file; read instead of calling CloudFormation. */
  readonly outputsFile?: string;
  readonly region?: string;
  readonly env: Env;
  readonly profileRegion?: typeof sdkProfileRegion;
}

/** The API stack from the outputs file (in the operator's region, else the deployment's), or by DescribeStacks. */
export async function openDeployedStack(options: OpenStackOptions): Promise<DeployedStack> {
  const chosen = await operatorRegion(options.region, options.env, options.profileRegion);
  if (options.outputsFile !== undefined) {
    const { stackName, outputs } = readOutputsFile(options.outputsFile, options.stack);
    const source = options.outputsFile;
    const published = chosen && !outputs[PLATFORM_CONFIG_OUTPUT]
      ? undefined
      : publishedConfig({ stackName, source, outputs }).platform.region;
    const region = chosen?.region ?? (published as string);
    const warnings = chosen && published && published !== region
      ? [`the deployment's platform.region is ${published}, but the CLI uses ${region} (from ${chosen.from})`]
      : [];
    return { stackName, region, source, outputs, warnings };
  }

  const stackName = options.stack ?? DEFAULT_API_STACK_NAME;
  if (!chosen) {
    throw usageError(
      `no AWS region to look up the stack ${stackName} in`,
      'pass --region, or set AWS_REGION (or a region in your AWS profile); with --outputs FILE the deployment\'s own region is used',
    );
  }
  return describeStack(stackName, chosen.region);
}

const WRITE_HINT = 'write it with: npx cdk deploy --all --outputs-file FILE';

/** `cdk deploy --outputs-file FILE`'s stack `stackName`, else the one with the platform's outputs (the API stack). */
export function readOutputsFile(
  file: string,
  stackName?: string,
): { stackName: string; outputs: Record<string, string> } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new CliError(`cannot read the outputs file ${file}${code ? ` (${code})` : ''}`, { code: 'outputs_file', cause: error, hint: WRITE_HINT });
  }
  const parsed = parseJson(text, () =>
    new CliError(`the outputs file ${file} is not JSON`, { code: 'outputs_file', hint: WRITE_HINT }));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CliError(`the outputs file ${file} is not a JSON object of stacks`, { code: 'outputs_file' });
  }
  const stacks = parsed as Record<string, unknown>;
  const outputsOf = (name: string): Record<string, string> => {
    const value = stacks[name];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  };

  if (stackName !== undefined) {
    if (!(stackName in stacks)) {
      const names = Object.keys(stacks);
      throw new CliError(`the outputs file ${file} has no stack ${stackName}`, {
        code: 'missing_outputs',
        hint: names.length ? `it has: ${names.join(', ')}` : 'it lists no stacks',
      });
    }
    return { stackName, outputs: outputsOf(stackName) };
  }

  const candidates = Object.keys(stacks).filter((name) => REQUIRED_OUTPUT_KEYS.some((key) => key in outputsOf(name)));
  if (candidates.length === 0) {
    throw new CliError(`no stack in the outputs file ${file} has the outputs ${REQUIRED_OUTPUT_KEYS.join(', ')}`, {
      code: 'missing_outputs',
      hint: 'deploy the API stack with: npx cdk deploy --all --outputs-file FILE',
    });
  }
  const chosen = candidates.length === 1
    ? (candidates[0] as string)
    : candidates.includes(DEFAULT_API_STACK_NAME) ? DEFAULT_API_STACK_NAME : undefined;
  if (chosen === undefined) {
    throw usageError(`the outputs file ${file} holds several API stacks (${candidates.join(', ')})`, 'choose one with --stack NAME');
  }
  return { stackName: chosen, outputs: outputsOf(chosen) };
}

/** `<prefix>-Domains` or `<prefix>-DomainsData` beside the API stack `<prefix>-Api`. */
export function siblingStackName(api: Pick<DeployedStack, 'stackName'>, part: 'Domains' | 'DomainsData'): string {
  if (!api.stackName.endsWith('-Api')) {
    throw new CliError(`--stack must name the environment's API stack (<stackPrefix>-Api), got ${api.stackName}`, { code: 'usage' });
  }
  return `${api.stackName.slice(0, -'-Api'.length)}-${part}`;
}

export function requiredOutput(stack: DeployedStack, key: string): string {
  const value = stack.outputs[key];
  if (!value) throw new CliError(`stack ${stack.stackName} has no ${key} output`, { code: 'stack_outputs' });
  return value;
}

/** A deployed stack and its outputs, through CloudFormation DescribeStacks. */
export async function describeStack(stackName: string, region: string): Promise<DeployedStack> {
  const client = new CloudFormationClient({ region });
  let stack;
  try {
    const answer = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    stack = answer.Stacks?.[0];
  } catch (error) {
    if ((error as { name?: string }).name === 'ValidationError' && /does not exist/i.test((error as Error).message)) {
      throw new CliError(`stack ${stackName} does not exist in ${region}`, {
        code: 'stack_not_found',
        cause: error,
        hint: 'check --stack (the API stack is <stackPrefix>-Api) and --region (or AWS_REGION)',
      });
    }
    throw awsError(error, region);
  } finally {
    client.destroy();
  }
  if (!stack) throw new CliError(`stack ${stackName} does not exist in ${region}`, { code: 'stack_not_found' });
  const outputs: Record<string, string> = {};
  for (const output of stack.Outputs ?? []) {
    if (output.OutputKey && output.OutputValue !== undefined) outputs[output.OutputKey] = output.OutputValue;
  }
  return { stackName: stack.StackName ?? stackName, region, source: `DescribeStacks in ${region}`, outputs, warnings: [] };
}
