import './polyfills.js';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import {
  DOMAIN_FLOW_STATES as S,
  domainFlowDefinition,
  domainFlowExecutionName,
} from '../lib/constructs/domains/domain-flow-definition.js';
import type { FlowInput, FlowTasks } from '../lambda/domains/flow-tasks.js';
import type { DomainFlowStarter } from '../lambda/domains/ports.js';

const localArn = (name: string) => `arn:aws:lambda:local:000000000000:function:domain-flow-${name}`;

/**
 * Runs the very definition the stack deploys in aws-local-stepfunctions, with its Lambda tasks
 * mapped to the same task functions the Lambdas run. Waits are shortened by `pollMs`; the
 * watchdog comes in the input (30 minutes unless overridden, as tests do).
 */
export class LocalDomainFlow implements DomainFlowStarter {
  private readonly machine = new StateMachine(
    domainFlowDefinition({
      verifyDns: localArn('verify-dns'),
      requestCertificate: localArn('request-certificate'),
      checkCertificate: localArn('check-certificate'),
      activate: localArn('activate'),
      diagnose: localArn('diagnose'),
    }) as unknown as StateMachineDefinition,
  );

  private readonly running = new Map<string, { abort(): void; result: Promise<unknown> }>();

  constructor(
    private readonly tasks: FlowTasks,
    private readonly options: { pollMs: number; watchdogSeconds: number },
  ) {}

  async start(input: { domain: string; attempt: number }): Promise<void> {
    const name = domainFlowExecutionName(input.domain, input.attempt);
    if (this.running.has(name)) return;
    const task = <T>(fn: (i: FlowInput) => Promise<T>) => async (i: unknown) => (await fn(i as FlowInput)) as never;
    const pollSeconds = Math.max(1, Math.round(this.options.pollMs / 1000));
    const execution = this.machine.run(
      { ...input, pollSeconds, watchdogSeconds: this.options.watchdogSeconds },
      {
        overrides: {
          taskResourceLocalHandlers: {
            [S.verifyDns]: task(this.tasks.verifyDns),
            [S.requestCertificate]: task(this.tasks.requestCertificate),
            [S.checkCertificate]: task(this.tasks.checkCertificate),
            [S.activate]: task(this.tasks.activate),
            [S.diagnose]: task(this.tasks.diagnose),
          },
          waitTimeOverrides: { [S.waitForCertificate]: this.options.pollMs },
        },
        noThrowOnAbort: true,
      },
    );
    const result = execution.result
      .catch((error: unknown) => console.error(`domain flow ${name} failed:`, (error as Error).message))
      .finally(() => this.running.delete(name));
    this.running.set(name, { abort: execution.abort, result });
  }

  /** Waits for running executions (tests), or aborts them (shutdown). */
  async settle(): Promise<void> {
    await Promise.all([...this.running.values()].map((r) => r.result));
  }

  async stop(): Promise<void> {
    for (const execution of this.running.values()) execution.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.result));
  }
}
