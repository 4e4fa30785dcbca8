import { type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import {
  DOMAIN_FLOW_DEFAULTS,
  domainFlowExecutionName,
  domainReleaseExecutionName,
  driftCheckExecutionName,
} from '../../contracts/domain-flow.js';
import type { DomainFlowStarter, TenantReleaseRequest } from './ports.js';

export interface SfnDomainFlowStarterOptions {
  /** With the management-plane retries (MANAGEMENT_PLANE in lambda/shared/aws-clients.ts). */
  readonly client: SFNClient;
  readonly stateMachineArn: string;
  /** Seconds between certificate checks. @default DOMAIN_FLOW_DEFAULTS.pollSeconds (30) */
  readonly pollSeconds?: number;
  /** Seconds after verification without a certificate before the diagnosis. @default DOMAIN_FLOW_DEFAULTS.watchdogSeconds (1800) */
  readonly watchdogSeconds?: number;
  /** Names a drift check started by hand. @default Date.now */
  readonly now?: () => number;
}

/**
 * Starts the domain flow (a Standard state machine) for one domain attempt. The execution name is
 * deterministic per attempt (`domainFlowExecutionName`), so a repeated start cannot run the flow
 * twice: Step Functions answers a start with the name of a running execution and the same input as
 * a success, and ExecutionAlreadyExists when that execution has closed or its input differs. Both
 * mean "this attempt has already been started", which is what the caller needs to know; a new
 * attempt (re-verify) has a new name. Releases of removed domains' tenants are executions of the
 * same machine (its release branch), one per claim of a domain (`domainReleaseExecutionName`).
 */
export class SfnDomainFlowStarter implements DomainFlowStarter {
  constructor(private readonly options: SfnDomainFlowStarterOptions) {}

  async start(input: { domain: string; attempt: number }): Promise<void> {
    await this.startExecution(domainFlowExecutionName(input.domain, input.attempt), {
      domain: input.domain,
      attempt: input.attempt,
      pollSeconds: this.options.pollSeconds ?? DOMAIN_FLOW_DEFAULTS.pollSeconds,
      watchdogSeconds: this.options.watchdogSeconds ?? DOMAIN_FLOW_DEFAULTS.watchdogSeconds,
    });
  }

  /** The input's `release` sends the execution down the release branch (ReleaseTaskInput). */
  async release(input: TenantReleaseRequest): Promise<void> {
    const { domain, ...release } = input;
    await this.startExecution(domainReleaseExecutionName(domain, input.claimedAt), { domain, release });
  }

  /** The input's `drift` sends the execution down the drift branch (DriftCheckInput). */
  async checkDrift(): Promise<{ execution: string }> {
    const execution = driftCheckExecutionName((this.options.now ?? Date.now)());
    await this.startExecution(execution, { drift: {} });
    return { execution };
  }

  private async startExecution(name: string, input: Record<string, unknown>): Promise<void> {
    try {
      await this.options.client.send(
        new StartExecutionCommand({
          stateMachineArn: this.options.stateMachineArn,
          name,
          input: JSON.stringify(input),
        }),
      );
    } catch (error) {
      if ((error as { name?: string }).name !== 'ExecutionAlreadyExists') throw error;
    }
  }
}
