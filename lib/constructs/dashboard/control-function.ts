import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { CONTROL_API_HANDLER, CONTROL_ENV } from '../../../contracts/control-api.js';
import { DOMAIN_TABLE_KEYS } from '../../../contracts/domains.js';
import { TABLE_KEYS } from '../../../contracts/messages.js';
import { type PlatformConfig, runtimeConfig } from '../../config/index.js';
import { KVS_ACTIONS } from '../domains/flow-permissions.js';
import type { Edge } from '../domains/edge.js';
import type { ProjectsData } from '../domains/projects-data.js';
import type { MessagesApi } from '../messages/messages-api.js';
import type { MessagesTables } from '../messages/messages-data.js';
import { apigatewayArn } from '../shared/arns.js';
import { acknowledgeNag } from '../shared/nag.js';
import { PlatformFunction } from '../shared/platform-function.js';
import { nagArn } from './nag-arn.js';
import type { DashboardData } from './dashboard-data.js';

export interface ControlFunctionProps {
  readonly config: PlatformConfig;
  readonly data: DashboardData;
  readonly messagesTables: Pick<MessagesTables, 'accounts' | 'apiKeys' | 'rateLimits'>;
  /** Where the account service binds internal API keys. */
  readonly usagePlanTargets: MessagesApi['usagePlanTargets'];
  /** The Messages API's public base URL (for the app config). */
  readonly messagesApiUrl: string;
  readonly projects: ProjectsData;
  readonly edge: Edge;
  readonly domainFlow: sfn.IStateMachine;
  /** `https://<distribution domain>`: the proxy integration's answers carry CORS headers for it. */
  readonly dashboardOrigin: string;
  /** Where owners' upgrade requests are published. @default - none: listed by `plans requests` only */
  readonly alarmTopic?: sns.ITopic;
}

/**
 * The control API's handler, with least privilege from what its adapters call as an owner reaches
 * the account, project and domain services (plans, bans and Enterprise plans are operator-only and
 * refused before any AWS call). No CloudFront tenant or ACM action: the domain flow releases a
 * removed domain's tenant.
 */
export function createControlFunction(scope: Construct, props: ControlFunctionProps): PlatformFunction {
  const stack = Stack.of(scope);
  const { config, data, messagesTables: tables, usagePlanTargets: cp, projects, edge } = props;
  const fn = new PlatformFunction(scope, 'ControlFunction', {
    entry: CONTROL_API_HANDLER.entry,
    handler: CONTROL_API_HANDLER.handler,
    serviceName: 'control-api',
    description: 'Control API of the dashboard: keys, plan and usage, projects, deploys and domains of the signed-in owner',
    // Deploys carry their files; API Gateway waits at most 29 s for an integration.
    memorySize: 1024,
    timeout: Duration.seconds(29),
    // Owners keep their dashboard during a Messages API flood (0: none); config protection.reservedConcurrency.
    reservedConcurrentExecutions: config.protection.reservedConcurrency.controlApi || undefined,
    environment: {
      [CONTROL_ENV.platformConfig]: JSON.stringify(runtimeConfig(config)),
      [CONTROL_ENV.apiKeysTable]: tables.apiKeys.tableName,
      [CONTROL_ENV.accountsTable]: tables.accounts.tableName,
      [CONTROL_ENV.rateLimitsTable]: tables.rateLimits.tableName,
      [CONTROL_ENV.ownersTable]: data.ownersTable.tableName,
      [CONTROL_ENV.restApiId]: cp.restApiId,
      [CONTROL_ENV.stageName]: cp.stageName,
      [CONTROL_ENV.usagePlanIds]: stack.toJsonString(cp.standardPlanIds),
      [CONTROL_ENV.projectsTable]: projects.tables.projects.tableName,
      [CONTROL_ENV.domainsTable]: projects.tables.domains.tableName,
      [CONTROL_ENV.siteBucket]: projects.siteBucket.bucketName,
      [CONTROL_ENV.keyValueStoreArn]: projects.keyValueStore.keyValueStoreArn,
      [CONTROL_ENV.platformHost]: edge.platformHost,
      [CONTROL_ENV.domainFlowArn]: props.domainFlow.stateMachineArn,
      [CONTROL_ENV.dashboardOrigin]: props.dashboardOrigin,
    },
  });

  // Keys, plan and usage: owner directory, account, key and limiter stores, the usage-plan gateway.
  fn.allowItems(data.ownersTable, 'GetItem', 'PutItem');
  fn.allowItems(tables.accounts, 'GetItem', 'PutItem', 'UpdateItem');
  fn.allowItems(tables.apiKeys, 'PutItem', 'UpdateItem');
  fn.allow(['dynamodb:Query'], [`${tables.apiKeys.tableArn}/index/${TABLE_KEYS.apiKeys.accountIndex.name}`]);
  fn.allowItems(tables.rateLimits, 'GetItem', 'UpdateItem');
  fn.allow(['apigateway:POST'], [apigatewayArn(stack, '/apikeys')]);
  fn.allow(['apigateway:PUT'], [apigatewayArn(stack, '/tags/*')]);
  fn.allow(['apigateway:DELETE'], [apigatewayArn(stack, '/apikeys/*')]);
  fn.allow(['apigateway:POST'], [apigatewayArn(stack, '/usageplans/*/keys')]);
  fn.allow(['apigateway:GET'], [apigatewayArn(stack, '/usageplans/*/keys/*')]);

  // Projects and deploys (presigned uploads, publish copies, manifests, pruning).
  const { projects: projectsTable, domains: domainsTable } = projects.tables;
  fn.allowItems(projectsTable, 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem');
  fn.allow(['dynamodb:Query'], [`${projectsTable.tableArn}/index/${DOMAIN_TABLE_KEYS.projects.accountIndex.name}`]);
  // The site bucket is SSE-S3: no KMS grant.
  // A presigned upload carries this function's s3:PutObject, for one content key only (the key is signed).
  const bucket = projects.siteBucket;
  const siteWrites = SITE_WRITE_PREFIXES.map((part) => bucket.arnForObjects(`projects/*/${part}/*`));
  const siteObjectsArn = bucket.arnForObjects('projects/*');
  fn.allow(['s3:PutObject'], siteWrites);
  fn.allow(['s3:GetObject', 's3:DeleteObject'], [siteObjectsArn]);
  fn.role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['s3:ListBucket'],
      resources: [bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': ['projects/*'] } },
    }),
  );
  fn.allow([...KVS_ACTIONS.write], [projects.keyValueStore.keyValueStoreArn]);

  // Custom domains.
  fn.allowItems(domainsTable, 'GetItem', 'PutItem', 'UpdateItem');
  fn.allow(['dynamodb:Query'], [`${domainsTable.tableArn}/index/${DOMAIN_TABLE_KEYS.domains.projectIndex.name}`]);
  // Verify starts the flow; removal starts its release branch (the tenant goes asynchronously).
  fn.allow(['states:StartExecution'], [props.domainFlow.stateMachineArn]);

  // Owners' upgrade requests, published to the operations topic.
  if (props.alarmTopic) {
    fn.function.addEnvironment(CONTROL_ENV.operationsTopicArn, props.alarmTopic.topicArn);
    fn.allow(['sns:Publish'], [props.alarmTopic.topicArn]);
    // An SSE-KMS topic: these two actions, not grantPublish's GenerateDataKey* family.
    const key = props.alarmTopic.masterKey;
    if (key) fn.allow(['kms:GenerateDataKey', 'kms:Decrypt'], [key.keyArn]);
  }

  // cdk-nag findings of the control function that are decisions of this design.
  const runTimeKeys =
    'the control plane creates one internal API Gateway key per customer key at run time, so their ids cannot be named in the template';
  const iam5 = (resource: string) => `IAM5[Resource::${nagArn(stack, resource)}]`;
  acknowledgeNag(fn.role, {
    [iam5(apigatewayArn(stack, '/apikeys/*'))]: `DeleteApiKey when an owner revokes a key (and when a failed creation cleans up): ${runTimeKeys}. Only apigateway:DELETE, on the API keys path only.`,
    [iam5(apigatewayArn(stack, '/tags/*'))]: 'Tag on create: CreateApiKey with tags (the customer key id) is also authorized as apigateway:PUT on the tags resource of the new key, whose id is only known at run time. Only PUT on tags.',
    [iam5(apigatewayArn(stack, '/usageplans/*/keys'))]: 'CreateUsagePlanKey binds a new internal key to the account\'s usage plan: one of the three standard plans, or the Enterprise account\'s own usage plan, created at run time by an operator, so not every plan id can be named. Only apigateway:POST on usage-plan key collections.',
    [iam5(apigatewayArn(stack, '/usageplans/*/keys/*'))]: `GetUsagePlanKey, after a ConflictException on binding, to check that the key is already in that very plan: the keys are created at run time and the plan may be an Enterprise one (run time too). Only apigateway:GET.`,
  });
  // The site bucket's ARN reads as the cross-stack reference only once the app is prepared.
  scope.node.addValidation({
    validate: () => {
      const writes = 'Deploys write contents (presigned PUTs signed by this role: one key each), published copies and manifests under projects/<projectId>/{content,deploys,manifests}/, ids created at run time: s3:PutObject only, on those three prefixes.';
      acknowledgeNag(fn.role, {
        [iam5(siteObjectsArn)]: 'Deploys read uploaded contents and manifests (copy source) and delete pruned deploys and deleted projects under projects/<projectId>/, ids created at run time: s3:GetObject and s3:DeleteObject only, under the projects/ prefix of the site bucket.',
        ...Object.fromEntries(siteWrites.map((arn) => [iam5(arn), writes])),
      });
      return [];
    },
  });
  return fn;
}

/** Where the control function writes in the site bucket, under `projects/<projectId>/`. */
const SITE_WRITE_PREFIXES = ['content', 'deploys', 'manifests'] as const;
