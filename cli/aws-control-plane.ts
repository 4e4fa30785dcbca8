import { readFileSync } from 'node:fs';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { DynamoDbAccountStore } from '../lambda/keys/accounts.js';
import { ApiGatewayUsagePlanGateway } from '../lambda/keys/api-gateway-usage-plan-gateway.js';
import { ControlPlane, ControlPlaneError } from '../lambda/keys/control-plane.js';
import { DynamoDbKeyStore } from '../lambda/keys/dynamodb-key-store.js';
import { DynamoDbLimiterStore } from '../lambda/rate-limits/dynamodb-limiter-store.js';
import { systemClock } from '../lambda/shared/clock.js';
import { createDocumentClient } from '../lambda/shared/dynamodb.js';
import { loadConfig, type PlatformConfig } from '../lib/config/index.js';
import type { ControlPlaneClient } from './control-plane-client.js';
import { CliError, usageError } from './errors.js';

/** `<stackPrefix>-Api` with the default prefix (lib/app.ts). */
export const DEFAULT_API_STACK_NAME = 'MessagesPlatform-Api';

/** The outputs of the API stack the CLI needs (lib/constructs/messages/messages-api.ts). */
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

export interface StackOutputs {
  readonly stackName: string;
  readonly apiKeysTableName: string;
  readonly accountsTableName: string;
  readonly rateLimitsTableName: string;
  readonly restApiId: string;
  readonly stageName: string;
  readonly usagePlanIds: { readonly free: string; readonly pro: string; readonly business: string };
}

/** Picks the CLI's outputs out of a stack's outputs; names every missing one. */
export function stackOutputsFrom(
  raw: Readonly<Record<string, unknown>>,
  stackName: string,
  source: string,
): StackOutputs {
  const missing = REQUIRED_OUTPUT_KEYS.filter((key) => typeof raw[key] !== 'string' || (raw[key] as string).length === 0);
  if (missing.length > 0) {
    throw new CliError(`stack ${stackName} (${source}) lacks the output${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`, {
      code: 'missing_outputs',
      hint: 'is it the API stack (<stackPrefix>-Api), deployed from this version of the platform? run cdk deploy again',
    });
  }
  const get = (key: (typeof REQUIRED_OUTPUT_KEYS)[number]) => raw[key] as string;
  return {
    stackName,
    apiKeysTableName: get('ApiKeysTableName'),
    accountsTableName: get('AccountsTableName'),
    rateLimitsTableName: get('RateLimitsTableName'),
    restApiId: get('RestApiId'),
    stageName: get('StageName'),
    usagePlanIds: { free: get('FreeUsagePlanId'), pro: get('ProUsagePlanId'), business: get('BusinessUsagePlanId') },
  };
}

/**
 * Reads the file written by `cdk deploy --outputs-file FILE`: `{ "<StackName>": { "<OutputKey>": "value" } }`.
 * With `stackName`, takes that stack; otherwise the one stack holding any of the CLI's outputs
 * (the API stack; the data stack has none), preferring `MessagesPlatform-Api` if several do.
 */
export function readOutputsFile(file: string, stackName?: string): StackOutputs {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new CliError(`cannot read the outputs file ${file}${code ? ` (${code})` : ''}`, {
      code: 'outputs_file',
      cause: error,
      hint: 'write it with: npx cdk deploy --all --outputs-file FILE',
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(`the outputs file ${file} is not JSON`, { code: 'outputs_file', hint: 'write it with: npx cdk deploy --all --outputs-file FILE' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CliError(`the outputs file ${file} is not a JSON object of stacks`, { code: 'outputs_file' });
  }
  const stacks = parsed as Record<string, unknown>;
  const outputsOf = (name: string) => {
    const value = stacks[name];
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  };

  if (stackName !== undefined) {
    if (!(stackName in stacks)) {
      const names = Object.keys(stacks);
      throw new CliError(`the outputs file ${file} has no stack ${stackName}`, {
        code: 'missing_outputs',
        hint: names.length ? `it has: ${names.join(', ')}` : 'it lists no stacks',
      });
    }
    return stackOutputsFrom(outputsOf(stackName), stackName, file);
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
  return stackOutputsFrom(outputsOf(chosen), chosen, file);
}

/** The outputs of a deployed stack, through CloudFormation DescribeStacks. */
export async function describeStackOutputs(
  client: CloudFormationClient,
  stackName: string,
  region: string,
): Promise<StackOutputs> {
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
  }
  if (!stack) throw new CliError(`stack ${stackName} does not exist in ${region}`, { code: 'stack_not_found' });
  const raw: Record<string, string> = {};
  for (const output of stack.Outputs ?? []) {
    if (output.OutputKey && output.OutputValue !== undefined) raw[output.OutputKey] = output.OutputValue;
  }
  return stackOutputsFrom(raw, stack.StackName ?? stackName, `DescribeStacks in ${region}`);
}

const REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d$/;

/** `--region`, else AWS_REGION, else the config's `platform.region`. */
export function resolveRegion(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  config: PlatformConfig,
): string {
  if (flag !== undefined) {
    if (!REGION_PATTERN.test(flag)) throw usageError(`--region must be an AWS region such as eu-west-1, got "${flag}"`);
    return flag;
  }
  return env.AWS_REGION || config.platform.region;
}

export interface AwsControlPlaneOptions {
  /** The API stack's name, for DescribeStacks (or to pick a stack in `outputsFile`). */
  readonly stack?: string;
  /** A `cdk deploy --outputs-file` JSON file; read instead of calling CloudFormation. */
  readonly outputsFile?: string;
  readonly region?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** @default loadConfig() */
  readonly config?: PlatformConfig;
}

export interface AwsControlPlane {
  readonly client: ControlPlaneClient;
  readonly outputs: StackOutputs;
  readonly region: string;
  close(): void;
}

/**
 * The control plane in process against a deployed stack: its DynamoDB tables and the API Gateway
 * usage plans, with the caller's AWS credentials (default provider chain).
 */
export async function createAwsControlPlane(options: AwsControlPlaneOptions): Promise<AwsControlPlane> {
  const config = options.config ?? loadConfig();
  const region = resolveRegion(options.region, options.env, config);

  let outputs: StackOutputs;
  if (options.outputsFile !== undefined) {
    outputs = readOutputsFile(options.outputsFile, options.stack);
  } else {
    const cloudFormation = new CloudFormationClient({ region });
    try {
      outputs = await describeStackOutputs(cloudFormation, options.stack ?? DEFAULT_API_STACK_NAME, region);
    } finally {
      cloudFormation.destroy();
    }
  }

  // The operator's credentials through the SDK's chain (profiles, SSO, ...); the client itself is the Lambdas'.
  const documentClient = createDocumentClient({ region, credentials: defaultProvider() });
  // One attempt per SDK call: the gateway adapter retries throttles itself, with backoff.
  const apiGateway = new APIGatewayClient({ region, maxAttempts: 1 });
  const controlPlane = new ControlPlane({
    accounts: new DynamoDbAccountStore(documentClient, outputs.accountsTableName),
    keys: new DynamoDbKeyStore(documentClient, outputs.apiKeysTableName),
    limiter: new DynamoDbLimiterStore(documentClient, outputs.rateLimitsTableName),
    gateway: new ApiGatewayUsagePlanGateway({
      client: apiGateway,
      restApiId: outputs.restApiId,
      stageName: outputs.stageName,
      standardPlanIds: outputs.usagePlanIds,
      config,
    }),
    clock: systemClock,
    config,
  });
  return {
    client: withCliErrors(controlPlane, region),
    outputs,
    region,
    close: () => {
      documentClient.destroy();
      apiGateway.destroy();
    },
  };
}

/** The in-process control plane, its refusals and AWS failures turned into CliErrors. */
function withCliErrors(controlPlane: ControlPlaneClient, region: string): ControlPlaneClient {
  const guard = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof ControlPlaneError) {
        throw new CliError(error.message, {
          code: error.code,
          status: error.status,
          ...(error.errors ? { errors: error.errors } : {}),
          cause: error,
        });
      }
      throw awsError(error, region);
    }
  };
  return {
    createAccount: (input) => guard(() => controlPlane.createAccount(input)),
    getAccount: (accountId) => guard(() => controlPlane.getAccount(accountId)),
    createKey: (accountId, name) => guard(() => controlPlane.createKey(accountId, name)),
    listKeys: (accountId) => guard(() => controlPlane.listKeys(accountId)),
    revokeKey: (accountId, keyId) => guard(() => controlPlane.revokeKey(accountId, keyId)),
    setPlan: (accountId, input) => guard(() => controlPlane.setPlan(accountId, input)),
    liftBan: (accountId, keyId) => guard(() => controlPlane.liftBan(accountId, keyId)),
    usage: (accountId) => guard(() => controlPlane.usage(accountId)),
  };
}

const CREDENTIALS_HINT = 'configure AWS credentials: AWS_PROFILE, aws sso login, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY';

/** An AWS SDK failure as a CliError (exit 1) with a hint; anything else is returned unchanged. */
export function awsError(error: unknown, region: string): unknown {
  if (error instanceof CliError || typeof error !== 'object' || error === null) return error;
  const e = error as { name?: string; message?: string; code?: string; $metadata?: unknown };
  const name = e.name ?? 'Error';
  const message = e.message ?? String(error);
  if (name === 'CredentialsProviderError' || /could not load credentials/i.test(message)) {
    return new CliError(`no AWS credentials: ${message}`, { code: 'aws_credentials', cause: error, hint: CREDENTIALS_HINT });
  }
  if (['ExpiredToken', 'ExpiredTokenException', 'UnrecognizedClientException', 'InvalidClientTokenId', 'InvalidSignatureException'].includes(name)) {
    return new CliError(`AWS refused the credentials (${name}): ${message}`, { code: 'aws_credentials', cause: error, hint: CREDENTIALS_HINT });
  }
  if (/AccessDenied|UnauthorizedOperation|NotAuthorized/.test(name)) {
    return new CliError(`AWS denied the call (${name}): ${message}`, {
      code: 'aws_access_denied',
      cause: error,
      hint: 'attach the stack\'s operator policy (output OperatorPolicyArn) to your role or user',
    });
  }
  if (name === 'ResourceNotFoundException' || name === 'NotFoundException') {
    return new CliError(`AWS: ${message} (${name})`, { code: 'aws_not_found', cause: error, hint: `check --region (now ${region}) and the stack outputs` });
  }
  if (/Throttl|TooManyRequests|LimitExceeded/.test(name)) {
    return new CliError(`AWS throttled the call (${name}): ${message}`, { code: 'aws_throttled', cause: error, hint: 'wait a minute and run the command again' });
  }
  if (name === 'ApiKeyQuotaError') {
    return new CliError(message, { code: 'api_key_quota', cause: error, hint: 'request a higher "API keys per Region" quota in Service Quotas' });
  }
  if (e.code === 'ENOTFOUND' || e.code === 'ECONNREFUSED' || e.code === 'ETIMEDOUT' || e.code === 'ECONNRESET') {
    return new CliError(`cannot reach AWS in ${region} (${e.code})`, { code: 'network', cause: error, hint: 'check --region and the network' });
  }
  if (e.$metadata !== undefined) {
    return new CliError(`AWS: ${message} (${name})`, { code: 'aws', cause: error });
  }
  return error;
}
