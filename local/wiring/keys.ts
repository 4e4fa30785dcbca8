import { type AccountRecord, DynamoDbAccountStore } from '../../lambda/keys/accounts.js';
import { createAuthorizerHandler } from '../../lambda/keys/authorizer-handler.js';
import { type AccountView, AccountService } from '../../lambda/keys/account-service.js';
import { DynamoDbKeyStore } from '../../lambda/keys/dynamodb-key-store.js';
import type { ApiKeyRecord } from '../../lambda/keys/key-store.js';
import { DynamoDbLimiterStore } from '../../lambda/rate-limits/dynamodb-limiter-store.js';
import { DynamoDbUsageHistoryStore } from '../../lambda/usage-history/dynamodb-usage-history-store.js';
import { PLAN_IDS, type PlanId, type PlatformConfig } from '../../lib/config/index.js';
import { LOCAL_TABLE_NAMES } from '../emulators.js';
import { LocalUsagePlanGateway, UsagePlans } from '../usage-plans.js';
import type { Wiring } from './backing-services.js';
import { scanAll } from './scan.js';

/** Accounts, API keys and plans over dynalite, the usage plans as on API Gateway, and the REQUEST authorizer. */
export function wireKeys({ backing: { documentClient }, clock, config }: Wiring) {
  const limiterStore = new DynamoDbLimiterStore(documentClient, LOCAL_TABLE_NAMES.rateLimits);
  const keys = new DynamoDbKeyStore(documentClient, LOCAL_TABLE_NAMES.apiKeys);
  const accounts = new DynamoDbAccountStore(documentClient, LOCAL_TABLE_NAMES.accounts);
  // The worker's accepted counts and the strike write's refusals, in the limiter's table (as on AWS).
  const usageHistoryStore = new DynamoDbUsageHistoryStore(documentClient, LOCAL_TABLE_NAMES.rateLimits);
  const usagePlans = new UsagePlans(clock);
  const gateway = new LocalUsagePlanGateway(usagePlans, config);
  const accountService = new AccountService({ accounts, keys, limiter: limiterStore, gateway, clock, config });
  const authorizer = createAuthorizerHandler({
    keys,
    pooledUsageKeys: gateway.pooledUsageKeys(),
    limits: { plans: config.plans, anonymous: config.anonymous },
    clock,
    keyCacheSeconds: config.auth.keyCacheSeconds,
  });
  return {
    limiterStore,
    usageHistoryStore,
    keys,
    accounts,
    usagePlans,
    accountService,
    authorizer,
    /** With --data: the usage plans are in memory, so the bindings of stored accounts and keys are rebuilt. */
    async restoreUsagePlans(): Promise<void> {
      const storedAccounts = (await scanAll(documentClient, LOCAL_TABLE_NAMES.accounts)) as AccountRecord[];
      const storedKeys = (await scanAll(documentClient, LOCAL_TABLE_NAMES.apiKeys)) as ApiKeyRecord[];
      gateway.restore(storedAccounts, storedKeys);
    },
  };
}

/** Demo accounts, one per plan (`acct_demo_<plan>`), and a fresh key each: through the account service, like any key. */
export async function seedDemoAccounts(
  { accountService, accounts }: Pick<ReturnType<typeof wireKeys>, 'accountService' | 'accounts'>,
  config: PlatformConfig,
): Promise<{ demoAccounts: Record<PlanId, AccountView>; demoKeys: Record<PlanId, string> }> {
  const demoAccounts = {} as Record<PlanId, AccountView>;
  const demoKeys = {} as Record<PlanId, string>;
  for (const plan of PLAN_IDS) {
    const accountId = `acct_demo_${plan}`;
    const existing = await accounts.get(accountId);
    demoAccounts[plan] = existing
      ? await accountService.getAccount(accountId)
      : await accountService.createAccount({ accountId, name: `Demo ${config.plans[plan].displayName}`, plan });
    demoKeys[plan] = (await accountService.createKey(accountId, 'demo key')).secret;
  }
  return { demoAccounts, demoKeys };
}
