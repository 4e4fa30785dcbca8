import {
  APIGatewayClient,
  DeleteApiKeyCommand,
  paginateGetUsagePlanKeys,
  paginateGetUsagePlans,
  type UsagePlan,
} from '@aws-sdk/client-api-gateway';
import { CloudFrontClient, paginateListDistributionTenants } from '@aws-sdk/client-cloudfront';
import { CloudFrontTenants } from '../lambda/domains/cloudfront-tenants.js';
import { ApiGatewayUsagePlanGateway, accountPlanName } from '../lambda/keys/api-gateway-usage-plan-gateway.js';
import { MANAGEMENT_PLANE, usagePlanUpdateRetry } from '../lambda/shared/aws-clients.js';
import { DOMAINS_OUTPUTS } from '../lib/stacks/domains-stack-outputs.js';
import { type DeployedStack, describeStack, operatorOutputs, publishedConfig, requiredOutput, siblingStackName } from './deployed-stack.js';
import type { RuntimeResources } from './environment-teardown.js';

/** ApiGatewayUsagePlanGateway's key per account, and Enterprise accounts' own plans. */
const INTERNAL_KEY_PREFIX = 'internal-';
const ACCOUNT_PLAN_PREFIX = accountPlanName('');

/** The run-time resources of a deployed environment, from the outputs of its API and DomainsData stacks. */
export async function awsRuntimeResources(api: DeployedStack): Promise<RuntimeResources> {
  const { region } = api;
  const outputs = operatorOutputs(api);
  const domains = await describeStack(siblingStackName(api, 'DomainsData'), region);
  const distributionId = requiredOutput(domains, DOMAINS_OUTPUTS.domainsData.distributionId);
  const connectionGroupId = requiredOutput(domains, DOMAINS_OUTPUTS.domainsData.connectionGroupId);
  const apiGateway = new APIGatewayClient({ ...MANAGEMENT_PLANE, region });
  const gateway = new ApiGatewayUsagePlanGateway({
    client: apiGateway,
    usagePlanUpdates: new APIGatewayClient({ region, retryStrategy: usagePlanUpdateRetry() }),
    restApiId: outputs.restApiId,
    stageName: outputs.stageName,
    standardPlanIds: outputs.usagePlanIds,
    config: publishedConfig(api),
  });
  // CloudFront is global; its API answers in us-east-1.
  const cloudfront = new CloudFrontClient({ ...MANAGEMENT_PLANE, region: 'us-east-1' });
  const tenants = new CloudFrontTenants({ cloudfront, distributionId, connectionGroupId });

  const ourPlans = async (): Promise<UsagePlan[]> => {
    const plans: UsagePlan[] = [];
    for await (const page of paginateGetUsagePlans({ client: apiGateway, pageSize: 500 }, {})) {
      plans.push(...(page.items ?? []).filter((p) => p.apiStages?.some((s) => s.apiId === outputs.restApiId)));
    }
    return plans;
  };

  return {
    async tenants() {
      const names: string[] = [];
      const filter = { AssociationFilter: { DistributionId: distributionId } };
      for await (const page of paginateListDistributionTenants({ client: cloudfront }, filter)) {
        for (const t of page.DistributionTenantList ?? []) {
          // The default tenant (`*.<platform domain>`) is the DomainsData stack's: CloudFormation deletes it.
          if (t.Name && !t.Domains?.some((d) => d.Domain?.startsWith('*.'))) names.push(t.Name);
        }
      }
      return names;
    },
    async removeTenant(name) {
      const version = await tenants.read(name);
      if (!version) return 'deleted';
      if (version.tenant.Enabled !== false) {
        const domainsOf = (version.tenant.Domains ?? []).map((d) => d.Domain).filter((d): d is string => !!d);
        const etag = await tenants.update(version, { domains: domainsOf, certificate: false, enabled: false });
        return tenants.delete({ tenant: { ...version.tenant, Enabled: false }, etag });
      }
      return tenants.delete(version);
    },
    async internalKeys() {
      const keys: { id: string; name: string }[] = [];
      for (const plan of await ourPlans()) {
        const pages = paginateGetUsagePlanKeys({ client: apiGateway, pageSize: 500 }, { usagePlanId: plan.id });
        for await (const page of pages) {
          for (const k of page.items ?? []) {
            if (k.id && k.name?.startsWith(INTERNAL_KEY_PREFIX)) keys.push({ id: k.id, name: k.name });
          }
        }
      }
      return keys;
    },
    async deleteKey(id) {
      try {
        await apiGateway.send(new DeleteApiKeyCommand({ apiKey: id }));
      } catch (error) {
        if ((error as { name?: string }).name !== 'NotFoundException') throw error;
      }
    },
    async accountPlans() {
      return (await ourPlans())
        .filter((p) => p.id && p.name?.startsWith(ACCOUNT_PLAN_PREFIX))
        .map((p) => ({ id: p.id as string, name: p.name as string }));
    },
    deleteAccountPlan: (id) => gateway.deleteAccountPlan(id),
  };
}
