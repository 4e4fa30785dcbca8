import {
  type APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanCommand,
  DeleteUsagePlanKeyCommand,
  GetUsagePlanCommand,
  GetUsagePlanKeyCommand,
  GetUsagePlansCommand,
  type UsagePlan,
  UpdateUsagePlanCommand,
} from '@aws-sdk/client-api-gateway';
import { backstopFor, type RuntimeConfig, type RateLimits } from '../../contracts/plans.js';
import type { InternalKey, UsagePlanGateway } from './usage-plan-gateway.js';

const errorName = (error: unknown): string | undefined => (error as { name?: string } | undefined)?.name;

/** CreateApiKey answered LimitExceededException for an account that may not share its plan's pooled key. */
export class ApiKeyQuotaError extends Error {
  constructor(accountId: string, cause: unknown) {
    super(
      `API Gateway refused a new API key for account ${accountId} (LimitExceededException: the API keys per region quota, 10,000 and fixed by AWS, is reached; one internal key per account). Business and Enterprise accounts never fall back to a pooled key: move Free and Pro accounts to their plan's pooled key, or serve further paid accounts from another Region or AWS account.`,
      { cause },
    );
    this.name = 'ApiKeyQuotaError';
  }
}

export interface ApiGatewayUsagePlanGatewayOptions {
  /** With the management-plane retries (MANAGEMENT_PLANE in lambda/shared/aws-clients.ts). */
  readonly client: APIGatewayClient;
  /** Sends UpdateUsagePlan, its retries 20 s apart at least (`retryStrategy: usagePlanUpdateRetry()`). */
  readonly usagePlanUpdates: APIGatewayClient;
  readonly restApiId: string;
  readonly stageName: string;
  /** Outputs FreeUsagePlanId, ProUsagePlanId, BusinessUsagePlanId. */
  readonly standardPlanIds: { readonly free: string; readonly pro: string; readonly business: string };
  readonly config: RuntimeConfig;
}

/** The usage-plan port on API Gateway (management API only); each operation is idempotent, so it can be re-run. */
export class ApiGatewayUsagePlanGateway implements UsagePlanGateway {
  constructor(private readonly options: ApiGatewayUsagePlanGatewayOptions) {}

  standardPlanId(plan: 'free' | 'pro' | 'business'): string {
    return this.options.standardPlanIds[plan];
  }

  /** Creates `enterprise-<accountId>` on this API's stage, or adopts (and updates) the one an earlier run created. */
  async createAccountPlan(accountId: string, limits: RateLimits): Promise<string> {
    const name = accountPlanName(accountId);
    const backstop = backstopFor(limits, this.options.config);
    const existing = await this.findAccountPlan(name);
    if (existing?.id) {
      const same =
        existing.throttle?.rateLimit === backstop.rateLimit &&
        existing.throttle?.burstLimit === backstop.burstLimit &&
        existing.quota?.limit === backstop.quotaPerDay;
      if (!same) await this.updateAccountPlan(existing.id, limits);
      return existing.id;
    }
    const created = await this.options.client.send(
      new CreateUsagePlanCommand({
        name,
        description: `Backstop of Enterprise account ${accountId} (its agreed limits × ${this.options.config.backstop.factor}); the exact limiter is ours`,
        apiStages: [{ apiId: this.options.restApiId, stage: this.options.stageName }],
        throttle: { rateLimit: backstop.rateLimit, burstLimit: backstop.burstLimit },
        quota: { limit: backstop.quotaPerDay, period: 'DAY' },
        tags: { accountId },
      }),
    );
    if (!created.id) throw new Error(`CreateUsagePlan ${name} returned no id`);
    return created.id;
  }

  async updateAccountPlan(usagePlanId: string, limits: RateLimits): Promise<void> {
    const backstop = backstopFor(limits, this.options.config);
    await this.options.usagePlanUpdates.send(
      new UpdateUsagePlanCommand({
        usagePlanId,
        patchOperations: [
          { op: 'replace', path: '/throttle/rateLimit', value: String(backstop.rateLimit) },
          { op: 'replace', path: '/throttle/burstLimit', value: String(backstop.burstLimit) },
          { op: 'replace', path: '/quota/limit', value: String(backstop.quotaPerDay) },
        ],
      }),
    );
  }

  /** Detaches the plan from this API's stage (API Gateway refuses to delete an attached plan), then deletes it. */
  async deleteAccountPlan(usagePlanId: string): Promise<void> {
    const plan = await ifFound(() => this.options.client.send(new GetUsagePlanCommand({ usagePlanId })));
    if (!plan) return;
    const stage = `${this.options.restApiId}:${this.options.stageName}`;
    if (this.hasOurStage(plan)) {
      const detached = await ifFound(() =>
        this.options.usagePlanUpdates.send(
          new UpdateUsagePlanCommand({
            usagePlanId,
            patchOperations: [{ op: 'remove', path: '/apiStages', value: stage }],
          }),
        ),
      );
      if (!detached) return;
    }
    await ifFound(() => this.options.client.send(new DeleteUsagePlanCommand({ usagePlanId })));
  }

  async createKey(accountId: string, usagePlanId: string, poolable: boolean): Promise<InternalKey | undefined> {
    let key: InternalKey;
    try {
      const created = await this.options.client.send(
        new CreateApiKeyCommand({
          name: `internal-${accountId}`,
          description: `Internal usage identifier of account ${accountId}, shared by its API keys; not a customer secret`,
          enabled: true,
          tags: { accountId },
        }),
      );
      if (!created.id) throw new Error(`CreateApiKey internal-${accountId} returned no id`);
      key = { id: created.id, value: created.value ?? '' };
    } catch (error) {
      if (errorName(error) !== 'LimitExceededException') throw error;
      // The API keys quota: Free and Pro accounts share their plan's pooled key (the authorizer uses
      // it for key records of pooled accounts); the others must not silently share a tier's backstop.
      if (poolable) return undefined;
      throw new ApiKeyQuotaError(accountId, error);
    }
    try {
      if (!key.value) throw new Error(`API key ${key.id} (account ${accountId}) has no value`);
      await this.bind(key.id, usagePlanId);
      return key;
    } catch (error) {
      try {
        await this.deleteKey(key.id);
      } catch (cleanupError) {
        throw new Error(
          `Binding internal API key ${key.id} (account ${accountId}) to usage plan ${usagePlanId} failed (${messageOf(error)}), and deleting that API key failed too (${messageOf(cleanupError)}): delete it by hand.`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /** An API key can be in one usage plan per stage only: unbind from `from`, then bind to `to`. */
  async moveKey(gatewayKeyId: string, fromUsagePlanId: string, toUsagePlanId: string): Promise<void> {
    if (fromUsagePlanId === toUsagePlanId) return;
    await ifFound(() =>
      this.options.client.send(new DeleteUsagePlanKeyCommand({ usagePlanId: fromUsagePlanId, keyId: gatewayKeyId })),
    );
    await this.bind(gatewayKeyId, toUsagePlanId);
  }

  /** Deleting the API key also removes it from its usage plan. */
  async deleteKey(gatewayKeyId: string): Promise<void> {
    await ifFound(() => this.options.client.send(new DeleteApiKeyCommand({ apiKey: gatewayKeyId })));
  }

  /** CreateUsagePlanKey; a ConflictException is fine when the key is already in that very plan. */
  private async bind(keyId: string, usagePlanId: string): Promise<void> {
    try {
      await this.options.client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId, keyType: 'API_KEY' }));
    } catch (error) {
      if (errorName(error) !== 'ConflictException') throw error;
      const bound = await ifFound(() => this.options.client.send(new GetUsagePlanKeyCommand({ usagePlanId, keyId })));
      if (!bound) throw error;
    }
  }

  /** The usage plan `name` on this API's stage, if an earlier run created it. */
  private async findAccountPlan(name: string): Promise<UsagePlan | undefined> {
    let position: string | undefined;
    do {
      const command = new GetUsagePlansCommand({ limit: 500, ...(position ? { position } : {}) });
      const page = await this.options.client.send(command);
      const found = page.items?.find((p) => p.name === name && this.hasOurStage(p));
      if (found) return found;
      position = page.position;
    } while (position);
    return undefined;
  }

  private hasOurStage(plan: UsagePlan): boolean {
    return (plan.apiStages ?? []).some(
      (s) => s.apiId === this.options.restApiId && s.stage === this.options.stageName,
    );
  }
}

/** Runs `send`; a NotFoundException means "already done" and yields undefined. */
async function ifFound<T>(send: () => Promise<T>): Promise<T | undefined> {
  try {
    return await send();
  } catch (error) {
    if (errorName(error) === 'NotFoundException') return undefined;
    throw error;
  }
}

export const accountPlanName = (accountId: string) => `enterprise-${accountId}`;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
