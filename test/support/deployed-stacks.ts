import { loadConfig } from '../../lib/config/index.js';
import { PLATFORM_CONFIG_OUTPUT } from '../../lib/stacks/api-stack-outputs.js';

/** A `Staging-Api` stack as the CLI reads it (cli/deployed-stack.ts), with the outputs the operator commands use. */
export const deployedApi = {
  stackName: 'Staging-Api',
  region: 'eu-west-1',
  source: 'test',
  warnings: [],
  outputs: {
    ApiKeysTableName: 'ApiKeys',
    AccountsTableName: 'Accounts',
    RateLimitsTableName: 'RateLimits',
    RestApiId: 'abc123',
    StageName: 'v1',
    FreeUsagePlanId: 'up-free',
    ProUsagePlanId: 'up-pro',
    BusinessUsagePlanId: 'up-business',
    [PLATFORM_CONFIG_OUTPUT]: JSON.stringify(loadConfig({ platform: { region: 'eu-west-1' } })),
  },
};

/** CloudFormation's DescribeStacks answer for one stack with these outputs. */
export const describedStack = (name: string, outputs: Record<string, string>) => ({
  Stacks: [{
    StackName: name,
    CreationTime: new Date(),
    StackStatus: 'UPDATE_COMPLETE' as const,
    Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
  }],
});
