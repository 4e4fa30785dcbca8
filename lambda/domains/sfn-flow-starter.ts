import { type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import {
  DOMAIN_FLOW_DEFAULTS,
  domainFlowExecutionName,
  domainReleaseExecutionName,
  driftCheckExecutionName,
} from '../../contracts/domain-flow.js';
import type { DomainFlowStarter, TenantReleaseRequest } from './ports.js';

interface SfnDomainFlowStarterOptions {
  /** With the management-plane retries. */
  readonly client: SFNClient;
  readonly stateMachineArn: string;
  /** Names a drift check started by hand. @default Date.now */
  readonly now?: () => number;
}

/** Executions are named per attempt or per claim: ExecutionAlreadyExists means "already started". */
export class SfnDomainFlowStarter implements DomainFlowStarter {
  constructor(private readonly options: SfnDomainFlowStarterOptions) {}

  async start(input: { domain: string; attempt: number }): Promise<void> {
    const { domain, attempt } = input;
    await this.startExecution(domainFlowExecutionName(domain, attempt), { domain, attempt, ...DOMAIN_FLOW_DEFAULTS });
  }

  async release(input: TenantReleaseRequest): Promise<void> {
    const { domain, ...release } = input;
    await this.startExecution(domainReleaseExecutionName(domain, input.claimedAt), { domain, release });
  }

  async checkDrift(): Promise<{ execution: string }> {
    const execution = driftCheckExecutionName((this.options.now ?? Date.now)());
    await this.startExecution(execution, { drift: {} });
    return { execution };
  }

  private async startExecution(name: string, input: Record<string, unknown>): Promise<void> {
    try {
      const { stateMachineArn } = this.options;
      const command = new StartExecutionCommand({ stateMachineArn, name, input: JSON.stringify(input) });
      await this.options.client.send(command);
    } catch (error) {
      if ((error as { name?: string }).name !== 'ExecutionAlreadyExists') throw error;
    }
  }
}
