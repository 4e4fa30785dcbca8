import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { DynamoDbAccountStore } from '../lambda/keys/accounts.js';
import { pendingUpgradeRequests } from '../lambda/keys/upgrade-requests.js';
import { ApiGatewayUsagePlanGateway } from '../lambda/keys/api-gateway-usage-plan-gateway.js';
import { AccountService } from '../lambda/keys/account-service.js';
import { DynamoDbKeyStore } from '../lambda/keys/dynamodb-key-store.js';
import { DynamoDbLimiterStore } from '../lambda/rate-limits/dynamodb-limiter-store.js';
import { MANAGEMENT_PLANE, usagePlanUpdateRetry } from '../lambda/shared/aws-clients.js';
import { systemClock } from '../lambda/shared/clock.js';
import { createDocumentClient } from '../lambda/shared/dynamodb.js';
import { DynamoDbUsageHistoryStore } from '../lambda/usage-history/dynamodb-usage-history-store.js';
import { MAX_HISTORY_DAYS } from '../lambda/usage-history/usage-days.js';
import { UsageHistory } from '../lambda/usage-history/usage-history.js';
import type { OperatorClient } from './operator-client.js';
import { type DeployedStack, type OpenStackOptions, openDeployedStack, operatorOutputs, publishedConfig } from './deployed-stack.js';

/** The account service in process on a deployed stack's tables and usage plans, with the deployment's own config. */
export async function createAwsOperatorClient(
  options: OpenStackOptions,
): Promise<{ client: OperatorClient; deployed: DeployedStack; close(): void }> {
  const stack = await openDeployedStack(options);
  const outputs = operatorOutputs(stack);
  const config = publishedConfig(stack);
  const { region } = stack;

  // The operator's credentials (the SDK's default chain); the clients and retries are the Lambdas'.
  const documentClient = createDocumentClient({ region });
  const apiGateway = new APIGatewayClient({ ...MANAGEMENT_PLANE, region });
  const usagePlanUpdates = new APIGatewayClient({ region, retryStrategy: usagePlanUpdateRetry() });
  const accounts = new DynamoDbAccountStore(documentClient, outputs.accountsTableName);
  const keys = new DynamoDbKeyStore(documentClient, outputs.apiKeysTableName);
  const accountService = new AccountService({
    accounts,
    keys,
    limiter: new DynamoDbLimiterStore(documentClient, outputs.rateLimitsTableName),
    gateway: new ApiGatewayUsagePlanGateway({
      client: apiGateway,
      usagePlanUpdates,
      restApiId: outputs.restApiId,
      stageName: outputs.stageName,
      standardPlanIds: outputs.usagePlanIds,
      config,
    }),
    clock: systemClock,
    config,
  });
  // The usage history reads the limiter's table with GetItem only (the operator policy's LimiterItems).
  const history = new UsageHistory({
    accounts,
    keys,
    history: new DynamoDbUsageHistoryStore(documentClient, outputs.rateLimitsTableName),
    clock: systemClock,
  });
  // Its refusals and AWS failures become CliErrors in cli/commands.ts.
  const client: OperatorClient = {
    createAccount: (input) => accountService.createAccount(input),
    getAccount: (accountId) => accountService.getAccount(accountId),
    createKey: (accountId, name) => accountService.createKey(accountId, name),
    listKeys: (accountId) => accountService.listKeys(accountId),
    revokeKey: (accountId, keyId) => accountService.revokeKey(accountId, keyId),
    setPlan: (accountId, input) => accountService.setPlan(accountId, input),
    liftBan: (accountId, keyId) => accountService.liftBan(accountId, keyId),
    usage: (accountId) => accountService.usage(accountId),
    usageHistory: (accountId, days) => history.history(accountId, days ?? MAX_HISTORY_DAYS),
    // A Scan of the accounts table (the operator policy's Accounts statement).
    upgradeRequests: () => pendingUpgradeRequests(accounts),
  };
  return {
    client,
    deployed: stack,
    close: () => {
      documentClient.destroy();
      apiGateway.destroy();
      usagePlanUpdates.destroy();
    },
  };
}
