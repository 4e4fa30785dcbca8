import type { LocalPlatform } from '../../../local/platform.js';
import { LOCAL_WEBHOOKS_TABLE } from '../../../local/wiring/webhooks.js';
import type { ResourceReference, SynthesizedFunction } from './cdk-out.js';

/** The account of every local ARN. */
export const LOCAL_ACCOUNT = '000000000000';

/** Stand-ins for resources of services without an emulator: only the stub sees them. */
export const LOCAL_IDS = {
  siteBucket: 'local-sites-bucket',
  keyValueStoreArn: `arn:aws:cloudfront::${LOCAL_ACCOUNT}:key-value-store/6a1f5c2e-0b7d-4c1e-9f3a-2d8e7b6c5a40`,
  distributionId: 'E2LOCALDIST01',
  connectionGroupId: 'cg_2localconnectiongroup01',
  restApiId: 'localapi01',
  stageName: 'v1',
  usagePlans: { free: 'upfree0001', pro: 'uppro00001', business: 'upbusiness' },
  dashboardDomain: 'd111111abcdef8.cloudfront.net',
  stateMachineName: 'DomainFlow-local',
} as const;

/**
 * What each resource an environment variable refers to is on the local platform, keyed by its
 * construct path below the stack and the attribute read (`Ref` or the GetAtt name). The type is
 * checked too, so a stack that wires a queue where a table belongs fails here, not on AWS.
 */
function localValues(platform: LocalPlatform, region: string): Record<string, { type: string; value: string }> {
  const table = (name: string) => ({ type: 'AWS::DynamoDB::Table', value: name });
  const t = platform.tables;
  return {
    'Messages/ApiKeys#Ref': table(t.apiKeys),
    'Messages/Accounts#Ref': table(t.accounts),
    'Messages/RateLimits#Ref': table(t.rateLimits),
    'Messages/Messages#Ref': table(t.messages),
    'Messages/Idempotency#Ref': table(t.idempotency),
    'Messages/Queue#Ref': { type: 'AWS::SQS::Queue', value: platform.queues.queueUrl },
    'Webhooks/Table#Ref': table(LOCAL_WEBHOOKS_TABLE),
    'Webhooks/DeliveryQueue#Ref': { type: 'AWS::SQS::Queue', value: platform.webhooks.queueUrl },
    'Projects/Projects#Ref': table(t.projects),
    'Projects/Domains#Ref': table(t.domains),
    'Dashboard/Owners#Ref': table(t.owners),
    'Projects/Sites#Ref': { type: 'AWS::S3::Bucket', value: LOCAL_IDS.siteBucket },
    'Projects/KeyValueStore#Arn': { type: 'AWS::CloudFront::KeyValueStore', value: LOCAL_IDS.keyValueStoreArn },
    'Edge/Distribution#Ref': { type: 'AWS::CloudFront::Distribution', value: LOCAL_IDS.distributionId },
    'Edge/ConnectionGroup#Id': { type: 'AWS::CloudFront::ConnectionGroup', value: LOCAL_IDS.connectionGroupId },
    'Messages/RestApi#Ref': { type: 'AWS::ApiGateway::RestApi', value: LOCAL_IDS.restApiId },
    'Messages/RestApi/DeploymentStage.v1#Ref': { type: 'AWS::ApiGateway::Stage', value: LOCAL_IDS.stageName },
    'Messages/UsagePlanFree#Ref': { type: 'AWS::ApiGateway::UsagePlan', value: LOCAL_IDS.usagePlans.free },
    'Messages/UsagePlanPro#Ref': { type: 'AWS::ApiGateway::UsagePlan', value: LOCAL_IDS.usagePlans.pro },
    'Messages/UsagePlanBusiness#Ref': { type: 'AWS::ApiGateway::UsagePlan', value: LOCAL_IDS.usagePlans.business },
    'Flow/StateMachine#Ref': {
      type: 'AWS::StepFunctions::StateMachine',
      value: `arn:aws:states:${region}:${LOCAL_ACCOUNT}:stateMachine:${LOCAL_IDS.stateMachineName}`,
    },
    'Dashboard/Distribution#DomainName': { type: 'AWS::CloudFront::Distribution', value: LOCAL_IDS.dashboardDomain },
  };
}

/** Resolves references for `CloudAssembly.resolveValue`, or throws naming the resource that has no local equivalent. */
export function localResolver(platform: LocalPlatform, region: string): (ref: ResourceReference) => string {
  const values = localValues(platform, region);
  return (ref) => {
    // The state machine's definition names its task functions by ARN.
    if (ref.type === 'AWS::Lambda::Function' && ref.attribute === 'Arn') return lambdaArnOf(region, ref.stack, ref.logicalId);
    const local = values[`${ref.path}#${ref.attribute}`];
    const what = `${ref.stack}/${ref.path} (${ref.type}, ${ref.attribute})`;
    if (!local) throw new Error(`refers to ${what}, which has no local equivalent in test/bundles/support/local-resources.ts`);
    if (local.type !== ref.type) throw new Error(`refers to ${what}, but locally that path is a ${local.type}`);
    return local.value;
  };
}

export const pseudoParameters = (region: string): Record<string, string> => ({
  'AWS::Region': region,
  'AWS::AccountId': LOCAL_ACCOUNT,
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
});

/** Lambda's name for a function CloudFormation named: `<stack>-<logical id>` (at most 64 characters). */
export const functionNameOf = (fn: Pick<SynthesizedFunction, 'stack' | 'logicalId'>) => `${fn.stack}-${fn.logicalId}`.slice(0, 64);

export const lambdaArnOf = (region: string, stack: string, logicalId: string) =>
  `arn:aws:lambda:${region}:${LOCAL_ACCOUNT}:function:${functionNameOf({ stack, logicalId })}`;

/** Dummy credentials, as Lambda hands a role's session to the function. Emulators and the stub accept any. */
export const LOCAL_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'ASIABUNDLESTAGE00001',
  AWS_SECRET_ACCESS_KEY: 'bundle-stage-secret-access-key',
  AWS_SESSION_TOKEN: 'bundle-stage-session-token',
} as const;

/** The variables Lambda's Node.js runtime sets for every function (reserved variables, AWS Lambda docs). */
export function lambdaRuntimeEnv(fn: SynthesizedFunction, codeDir: string): Record<string, string> {
  const name = functionNameOf(fn);
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    LAMBDA_TASK_ROOT: codeDir,
    _HANDLER: fn.handler,
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${name}`,
    AWS_LAMBDA_LOG_STREAM_NAME: '2026/11/21/[$LATEST]0123456789abcdef0123456789abcdef',
    AWS_REGION: fn.region,
    AWS_DEFAULT_REGION: fn.region,
    ...LOCAL_CREDENTIALS,
  };
}

/**
 * Where the local peers are, as the SDK (and the platform's own client, which reads the same
 * variables) finds a configured endpoint: AWS_ENDPOINT_URL_<service id>. DNS_SERVERS is the domain
 * flow's resolver setting (the construct sets it only when `dnsServers` is configured; on AWS the
 * VPC resolver answers), here the dns2 server.
 */
export function localNetworkEnv(endpoints: {
  readonly dynamodb: string;
  readonly sqs: string;
  readonly stub: string;
  /** The stub as a host name, for the KeyValueStore client (it prefixes the account id). */
  readonly stubHost: string;
  readonly dns: string;
}): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    AWS_ENDPOINT_URL_CLOUDFRONT: endpoints.stub,
    AWS_ENDPOINT_URL_ACM: endpoints.stub,
    AWS_ENDPOINT_URL_CLOUDFRONT_KEYVALUESTORE: endpoints.stubHost,
    AWS_ENDPOINT_URL_SFN: endpoints.stub,
    AWS_ENDPOINT_URL_API_GATEWAY: endpoints.stub,
    AWS_ENDPOINT_URL_S3: endpoints.stub,
    DNS_SERVERS: endpoints.dns,
    // Node 20 here, nodejs22.x on Lambda: the SDK's notice about Node 20 would only add noise to the logs.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}
