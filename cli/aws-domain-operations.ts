import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { MANAGEMENT_PLANE } from '../lambda/shared/aws-clients.js';
import { DOMAINS_OUTPUTS } from '../lib/stacks/domains-stack-outputs.js';
import { awsError } from './aws-errors.js';
import { type DeployedStack, describeStack } from './deployed-stack.js';
import { CliError } from './errors.js';
import type { DriftCheckStarted } from './operator-client.js';

/** The domain flow's drift-check input, as its EventBridge schedule sends it (lib/constructs/domains/drift-schedule.ts). */
export const DRIFT_CHECK_EXECUTION_INPUT = { drift: {} } as const;

/** `<prefix>-Domains` beside `<prefix>-Api`. */
export function domainsStackName(apiStackName: string): string {
  if (!apiStackName.endsWith('-Api')) {
    throw new CliError(`--stack must name the environment's API stack (<stackPrefix>-Api), got ${apiStackName}`, { code: 'usage' });
  }
  return `${apiStackName.slice(0, -'-Api'.length)}-Domains`;
}

/** Starts the domain flow's drift check of every live domain now, on the deployed environment. */
export async function startDriftCheck(
  api: DeployedStack,
  now: () => Date = () => new Date(),
): Promise<DriftCheckStarted> {
  const { region } = api;
  const domains = await describeStack(new CloudFormationClient({ region }), domainsStackName(api.stackName), region);
  const stateMachineArn = domains.outputs[DOMAINS_OUTPUTS.domains.stateMachineArn];
  if (!stateMachineArn) {
    throw new CliError(`stack ${domains.stackName} has no ${DOMAINS_OUTPUTS.domains.stateMachineArn} output`, { code: 'stack_outputs' });
  }
  const startedAt = now();
  try {
    const started = await new SFNClient({ ...MANAGEMENT_PLANE, region }).send(
      new StartExecutionCommand({
        stateMachineArn,
        name: `drift-operator-${startedAt.getTime()}`,
        input: JSON.stringify(DRIFT_CHECK_EXECUTION_INPUT),
      }),
    );
    return { execution: started.executionArn ?? '', startedAt: (started.startDate ?? startedAt).toISOString() };
  } catch (error) {
    throw awsError(error, region);
  }
}
