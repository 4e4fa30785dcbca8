import { type AccountRecord, DynamoDbAccountStore } from '../../lambda/keys/accounts.js';
import { createAuthorizerHandler } from '../../lambda/keys/authorizer-handler.js';
import { AccountService } from '../../lambda/keys/account-service.js';
import type { AccountView } from '../../lambda/keys/views.js';
import { DynamoDbKeyStore } from '../../lambda/keys/dynamodb-key-store.js';
import { DynamoDbLimiterStore } from '../../lambda/rate-limits/dynamodb-limiter-store.js';
import { DynamoDbUsageHistoryStore } from '../../lambda/usage-history/dynamodb-usage-history-store.js';
import { PLAN_IDS, type PlanId } from '../../lib/config/index.js';
import type { DynamoDbOwnerStore } from '../../lambda/control/owners.js';
import { type DemoOwner, DevSignIn } from '../dashboard.js';
import { LOCAL_TABLE_NAMES } from '../emulators.js';
import { UsagePlans } from '../usage-plans.js';
import { scanAll, type Wiring } from './backing-services.js';

/** Accounts, API keys and plans over dynalite, the usage plans as on API Gateway, and the REQUEST authorizer. */
export function wireKeys({ backing: { documentClient }, clock, config }: Wiring) {
  const limiterStore = new DynamoDbLimiterStore(documentClient, LOCAL_TABLE_NAMES.rateLimits);
  const keys = new DynamoDbKeyStore(documentClient, LOCAL_TABLE_NAMES.apiKeys);
  const accounts = new DynamoDbAccountStore(documentClient, LOCAL_TABLE_NAMES.accounts);
  // The worker's accepted counts and the strike write's refusals, in the limiter's table (as on AWS).
  const usageHistoryStore = new DynamoDbUsageHistoryStore(documentClient, LOCAL_TABLE_NAMES.rateLimits);
  const gateway = new UsagePlans(clock, config);
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
    usagePlans: gateway,
    accountService,
    authorizer,
    /** With --data: the usage plans are in memory, so the bindings of stored accounts and keys are rebuilt. */
    async restoreUsagePlans(): Promise<void> {
      gateway.restore((await scanAll(documentClient, LOCAL_TABLE_NAMES.accounts)) as AccountRecord[]);
    },
  };
}

/** A demo account per plan (`acct_demo_<plan>`) with a fresh key, and its owner `<plan>@demo.local`. */
export async function seedDemoAccounts(
  { clock, config }: Wiring,
  { accountService, accounts }: ReturnType<typeof wireKeys>,
  owners: DynamoDbOwnerStore,
) {
  const demoAccounts = {} as Record<PlanId, AccountView>;
  const demoKeys = {} as Record<PlanId, string>;
  const demoOwners: DemoOwner[] = [];
  for (const plan of PLAN_IDS) {
    const accountId = `acct_demo_${plan}`;
    demoAccounts[plan] = (await accounts.get(accountId))
      ? await accountService.getAccount(accountId)
      : await accountService.createAccount({ accountId, name: `Demo ${config.plans[plan].displayName}`, plan });
    demoKeys[plan] = (await accountService.createKey(accountId, 'demo key')).secret;
    const email = `${plan}@demo.local`;
    const createdAt = new Date(clock.now()).toISOString();
    await owners.link({ ownerId: DevSignIn.ownerIdOf(email), accountId, email, createdAt });
    demoOwners.push({ email, plan });
  }
  return { demoAccounts, demoKeys, demoOwners };
}
