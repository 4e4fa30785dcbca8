import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SNSClient } from '@aws-sdk/client-sns';
import type { RuntimeConfig } from '../../contracts/plans.js';
import { CONTROL_ENV } from '../../contracts/control-api.js';
import { kvsEdgeRouter } from '../domains/aws-adapters.js';
import { DomainService } from '../domains/domain-service.js';
import { createProjectDomains } from '../domains/project-domains.js';
import { DynamoDbDomainStore } from '../domains/dynamodb-domain-store.js';
import { SfnDomainFlowStarter } from '../domains/sfn-flow-starter.js';
import { DynamoDbAccountStore } from '../keys/accounts.js';
import { ApiGatewayUsagePlanGateway } from '../keys/api-gateway-usage-plan-gateway.js';
import { AccountService } from '../keys/account-service.js';
import { DynamoDbKeyStore } from '../keys/dynamodb-key-store.js';
import { SnsOperationsNotifier, unpublishedOperations } from '../keys/sns-operations-notifier.js';
import { UpgradeRequests } from '../keys/upgrade-requests.js';
import { DynamoDbProjectStore } from '../projects/dynamodb-project-store.js';
import { DeployService } from '../projects/deploy-service.js';
import { ProjectService } from '../projects/project-service.js';
import { S3SiteStorage } from '../projects/s3-site-storage.js';
import { DynamoDbLimiterStore } from '../rate-limits/dynamodb-limiter-store.js';
import { DATA_PLANE, MANAGEMENT_PLANE, traced, usagePlanUpdateRetry } from '../shared/aws-clients.js';
import { systemClock } from '../shared/clock.js';
import { documentClient as documents } from '../shared/runtime.js';
import { DynamoDbUsageHistoryStore } from '../usage-history/dynamodb-usage-history-store.js';
import { UsageHistory } from '../usage-history/usage-history.js';
import { requireEnv, requireJsonEnv } from '../shared/env.js';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ENV as MESSAGES_ENV } from '../../contracts/messages.js';
import { WEBHOOK_ENV } from '../../contracts/webhooks.js';
import { DynamoDbMessageStore } from '../messages/dynamodb-message-store.js';
import { AWS_DELIVERY_POLICY, DynamoDbWebhookStore, SqsDeliveryQueue, WebhookService } from '../webhooks/index.js';
import type { ControlServices } from './control-router.js';
import { createControlApiHandler } from './http-handlers.js';
import { DynamoDbOwnerStore, OwnerDirectory } from './owners.js';
import { messageLogOf } from './owner-messages.js';

// Clients and services, built once per cold start from CONTROL_ENV (the config was validated at synth).
const config = requireJsonEnv<RuntimeConfig>(CONTROL_ENV.platformConfig);
const clock = systemClock;

const accounts = new DynamoDbAccountStore(documents, requireEnv(CONTROL_ENV.accountsTable));
const keys = new DynamoDbKeyStore(documents, requireEnv(CONTROL_ENV.apiKeysTable));
const accountService = new AccountService({
  accounts,
  keys,
  limiter: new DynamoDbLimiterStore(documents, requireEnv(CONTROL_ENV.rateLimitsTable)),
  gateway: new ApiGatewayUsagePlanGateway({
    client: traced(new APIGatewayClient(MANAGEMENT_PLANE)),
    usagePlanUpdates: traced(new APIGatewayClient({ retryStrategy: usagePlanUpdateRetry() })),
    restApiId: requireEnv(CONTROL_ENV.restApiId),
    stageName: requireEnv(CONTROL_ENV.stageName),
    standardPlanIds: requireJsonEnv<{ free: string; pro: string; business: string }>(CONTROL_ENV.usagePlanIds),
    config,
  }),
  clock,
  config,
});

const projectStore = new DynamoDbProjectStore(documents, requireEnv(CONTROL_ENV.projectsTable));
const domainStore = new DynamoDbDomainStore(documents, requireEnv(CONTROL_ENV.domainsTable));
const edge = kvsEdgeRouter(requireEnv(CONTROL_ENV.keyValueStoreArn));

const siteStorage = new S3SiteStorage({
  client: traced(new S3Client(MANAGEMENT_PLANE)),
  bucket: requireEnv(CONTROL_ENV.siteBucket),
  clock,
});
const domainFlow = new SfnDomainFlowStarter({
  client: traced(new SFNClient(MANAGEMENT_PLANE)),
  stateMachineArn: requireEnv(CONTROL_ENV.domainFlowArn),
});
const projectDomains = createProjectDomains({ domains: domainStore, edge, flow: domainFlow, clock });
const projectDeps = {
  projects: projectStore,
  domains: projectDomains,
  storage: siteStorage,
  edge,
  clock,
  platformDomain: config.platform.domain,
};
const operationsTopicArn = process.env[CONTROL_ENV.operationsTopicArn];

const services: ControlServices = {
  upgradeRequests: new UpgradeRequests({
    accounts,
    notifier: operationsTopicArn
      ? new SnsOperationsNotifier(traced(new SNSClient({})), operationsTopicArn)
      : unpublishedOperations,
    clock,
  }),
  accountService,
  projects: new ProjectService({ ...projectDeps, accounts }),
  deploys: new DeployService(projectDeps),
  domains: new DomainService({
    accounts,
    projects: projectStore,
    domains: domainStore,
    edge,
    flow: domainFlow,
    clock,
    config,
    platformHost: requireEnv(CONTROL_ENV.platformHost),
  }),
  owners: new OwnerDirectory({
    store: new DynamoDbOwnerStore(documents, requireEnv(CONTROL_ENV.ownersTable)),
    accountService,
    clock,
  }),
  config,
  usageHistory: new UsageHistory({
    accounts,
    keys,
    history: new DynamoDbUsageHistoryStore(documents, requireEnv(CONTROL_ENV.rateLimitsTable)),
    clock,
  }),
  webhooks: {
    service: new WebhookService({
      store: new DynamoDbWebhookStore(documents, requireEnv(WEBHOOK_ENV.webhooksTable)),
      queue: new SqsDeliveryQueue(traced(new SQSClient(DATA_PLANE)), requireEnv(WEBHOOK_ENV.deliveryQueueUrl)),
      clock,
      policy: AWS_DELIVERY_POLICY,
      retentionDays: config.messages.retentionDays,
    }),
    messages: messageLogOf(new DynamoDbMessageStore(documents, requireEnv(MESSAGES_ENV.messagesTable))),
  },
};

const dashboardOrigin = process.env[CONTROL_ENV.dashboardOrigin];
export const handler = createControlApiHandler(services, dashboardOrigin ? { dashboardOrigin } : {});
