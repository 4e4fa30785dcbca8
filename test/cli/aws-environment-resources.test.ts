import { APIGatewayClient, DeleteApiKeyCommand, GetUsagePlanKeysCommand, GetUsagePlansCommand } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { CloudFrontClient, ListDistributionTenantsCommand } from '@aws-sdk/client-cloudfront';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { awsRuntimeResources } from '../../cli/aws-environment-resources.js';
import { awsError } from '../../cli/aws-errors.js';
import { CliError } from '../../cli/errors.js';
import { deployedApi, describedStack } from '../support/deployed-stacks.js';

const cloudformation = mockClient(CloudFormationClient);
const apiGateway = mockClient(APIGatewayClient);
const cloudfront = mockClient(CloudFrontClient);
afterEach(() => {
  cloudformation.reset();
  apiGateway.reset();
  cloudfront.reset();
});

const BOTH_OUTPUTS = { DistributionId: 'E1', ConnectionGroupId: 'cg-1' };

function domainsData(outputs: Record<string, string> = BOTH_OUTPUTS) {
  cloudformation.on(DescribeStacksCommand, { StackName: 'Staging-DomainsData' }).resolves(describedStack('Staging-DomainsData', outputs));
}

describe('the run-time resources of a deployed environment', () => {
  it('pages through the tenants (not the default one), the internal keys and the account plans of this API', async () => {
    domainsData();
    cloudfront.on(ListDistributionTenantsCommand, { Marker: undefined }).resolves({
      DistributionTenantList: [
        { Name: 'default', Domains: [{ Domain: '*.platform.example.com' }] } as never,
        { Name: 'acme-site', Domains: [{ Domain: 'www.acme.example' }] } as never,
      ],
      NextMarker: 'm2',
    });
    cloudfront.on(ListDistributionTenantsCommand, { Marker: 'm2' }).resolves({ DistributionTenantList: [{ Name: 'shop' } as never] });
    apiGateway.on(GetUsagePlansCommand, { position: undefined }).resolves({
      items: [{ id: 'up-pro', name: 'pro', apiStages: [{ apiId: 'abc123', stage: 'v1' }] }, { id: 'other', name: 'enterprise-x', apiStages: [{ apiId: 'zzz' }] }],
      position: 'p2',
    });
    apiGateway.on(GetUsagePlansCommand, { position: 'p2' }).resolves({
      items: [{ id: 'up-ent', name: 'enterprise-acct_1', apiStages: [{ apiId: 'abc123', stage: 'v1' }] }],
    });
    apiGateway.on(GetUsagePlanKeysCommand, { usagePlanId: 'up-pro' }).resolves({
      items: [{ id: 'k1', name: 'internal-acct_2' }, { id: 'k2', name: 'pooled-1' }],
    });
    apiGateway.on(GetUsagePlanKeysCommand, { usagePlanId: 'up-ent' }).resolves({ items: [{ id: 'k3', name: 'internal-acct_1' }] });

    const resources = await awsRuntimeResources(deployedApi);
    expect(await resources.tenants()).toEqual(['acme-site', 'shop']);
    expect(await resources.internalKeys()).toEqual([{ id: 'k1', name: 'internal-acct_2' }, { id: 'k3', name: 'internal-acct_1' }]);
    expect(await resources.accountPlans()).toEqual([{ id: 'up-ent', name: 'enterprise-acct_1' }]);
  });

  it('a key already gone is deleted; other AWS failures become CliErrors through awsError', async () => {
    domainsData();
    apiGateway.on(DeleteApiKeyCommand, { apiKey: 'gone' }).rejects(Object.assign(new Error('no key'), { name: 'NotFoundException' }));
    apiGateway.on(DeleteApiKeyCommand, { apiKey: 'denied' }).rejects(
      Object.assign(new Error('not allowed'), { name: 'AccessDeniedException', $metadata: {} }),
    );
    const resources = await awsRuntimeResources(deployedApi);
    await resources.deleteKey('gone');
    const error = awsError(await resources.deleteKey('denied').catch((e: unknown) => e), 'eu-west-1');
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({ code: 'aws_access_denied' });
  });

  it('names the output the DomainsData stack lacks', async () => {
    for (const missing of ['ConnectionGroupId', 'DistributionId'] as const) {
      cloudformation.reset();
      const { [missing]: _left, ...kept } = BOTH_OUTPUTS;
      domainsData(kept);
      await expect(awsRuntimeResources(deployedApi)).rejects.toThrow(`stack Staging-DomainsData has no ${missing} output`);
    }
  });
});
