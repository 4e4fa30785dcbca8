import { type CliIo, httpUrl, type Values } from './command.js';
import type { OperatorClient } from './operator-client.js';
import type { DeployedStack } from './deployed-stack.js';
import { CliError, usageError } from './errors.js';
import { DEFAULT_CONTROL_URL, ControlApiClient } from './control-api-client.js';

/** The local platform's control API (--url, $PLATFORM_CONTROL_URL or the default), or a deployed stack. */
export interface Backend {
  readonly client: OperatorClient;
  /** Projects, domains and webhooks: the local control API only. */
  readonly control?: ControlApiClient;
  readonly deployed?: DeployedStack;
  close(): void;
}

export const AWS_PROJECTS_MESSAGE =
  'projects and domains of a deployed stack are managed by their owners in the dashboard (output DashboardUrl of <stackPrefix>-Dashboard)';

export const AWS_WEBHOOKS_MESSAGE =
  'webhook endpoints of a deployed stack are managed by their owners in the dashboard (Webhooks) or its control API';

export async function openBackend(values: Values, env: CliIo['env'], localOnly = false): Promise<Backend> {
  const { url, stack, outputs, region } = values as Record<string, string | undefined>;
  const deployed = stack !== undefined || outputs !== undefined;
  if (url !== undefined && deployed) throw usageError('--url is for the local platform; --stack/--outputs for a deployed stack: give one or the other');
  if (region !== undefined && !deployed) throw usageError('--region goes with --stack or --outputs');
  if (deployed && localOnly) {
    throw new CliError(AWS_PROJECTS_MESSAGE, {
      code: 'not_supported',
      hint: 'against the local platform (npm start), drop --stack/--outputs (or pass --url)',
    });
  }

  if (deployed) {
    // Loaded only for a deployed stack: the AWS SDK clients are not needed locally.
    const { createAwsOperatorClient } = await import('./aws-operator-client.js');
    return createAwsOperatorClient({ stack, outputsFile: outputs, region, env });
  }

  const baseUrl = url ?? (env.PLATFORM_CONTROL_URL || DEFAULT_CONTROL_URL);
  httpUrl(baseUrl, url !== undefined ? '--url' : 'PLATFORM_CONTROL_URL');
  const client = new ControlApiClient(baseUrl);
  return { client, control: client, close: () => {} };
}
