import './polyfills.js';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import {
  DOMAIN_FLOW_STATES as S,
  domainFlowDefinition,
  type DomainFlowTasks,
  domainFlowExecutionName,
  domainReleaseExecutionName,
  driftCheckExecutionName,
} from '../contracts/domain-flow.js';
import type { DriftCheckInput, DriftCheckTask } from '../lambda/domains/drift-check.js';
import type { FlowTasks } from '../lambda/domains/flow-tasks.js';
import type { DomainFlowStarter, TenantReleaseRequest } from '../lambda/domains/ports.js';
import type { ReleaseTask } from '../lambda/domains/release-task.js';

/** An execution's input, as the engine types it (JSON). */
type ExecutionInput = Parameters<StateMachine['run']>[0];

/** The definition's Lambda tasks; locally each state's task runs in process (taskResourceLocalHandlers). */
const TASKS = ['verifyDns', 'requestCertificate', 'checkCertificate', 'activate', 'diagnose', 'releaseTenant', 'checkDrift'] as const;
const TASK_ARNS = Object.fromEntries(
  TASKS.map((t) => [t, `arn:aws:lambda:local:000000000000:function:domain-flow-${t}`]),
) as Record<keyof DomainFlowTasks, string>;
/** The context object's `StateMachine.Id` locally (the drift task reads it; locally it starts releases in process). */
const LOCAL_STATE_MACHINE_ARN = 'arn:aws:states:local:000000000000:stateMachine:domain-flow';

interface LocalDomainFlowOptions {
  /** The wait between certificate checks. */
  readonly pollMs: number;
  readonly watchdogSeconds: number;
  /** The wait between rounds of a tenant release, and between retries of its task. */
  readonly releaseWaitMs: number;
}

/** The deployed definition in aws-local-stepfunctions, each Lambda task run in process, its waits shortened. */
export class LocalDomainFlow implements DomainFlowStarter {
  private readonly machine = new StateMachine(domainFlowDefinition(TASK_ARNS) as unknown as StateMachineDefinition);

  private readonly running = new Map<string, { abort(): void; result: Promise<unknown> }>();

  private driftTask: DriftCheckTask | undefined;
  private driftRuns = 0;

  constructor(
    private readonly tasks: FlowTasks,
    private readonly releaseTask: ReleaseTask,
    private readonly options: LocalDomainFlowOptions,
  ) {}

  /** The drift branch's task; set after construction because it starts releases on this very flow. */
  useDriftCheck(task: DriftCheckTask): void {
    this.driftTask = task;
  }

  async start(input: { domain: string; attempt: number }): Promise<void> {
    const pollSeconds = Math.max(1, Math.round(this.options.pollMs / 1000));
    const { watchdogSeconds } = this.options;
    this.run(domainFlowExecutionName(input.domain, input.attempt), { ...input, pollSeconds, watchdogSeconds });
  }

  async release(input: TenantReleaseRequest): Promise<void> {
    const { domain, ...release } = input;
    this.run(domainReleaseExecutionName(domain, input.claimedAt), { domain, release });
  }

  async checkDrift(): Promise<{ execution: string }> {
    // Distinct names even within one millisecond (a timer and a "check now" together).
    const execution = `${driftCheckExecutionName(Date.now())}-${++this.driftRuns}`;
    this.run(execution, { drift: {} });
    return { execution };
  }

  /** Waits for running executions (tests), or aborts them (shutdown). */
  async settle(): Promise<void> {
    await Promise.all([...this.running.values()].map((r) => r.result));
  }

  async stop(): Promise<void> {
    for (const execution of this.running.values()) execution.abort();
    await Promise.allSettled([...this.running.values()].map((r) => r.result));
  }

  /** One execution per name at a time, as Step Functions does for a running execution's name. */
  private run(name: string, input: ExecutionInput): void {
    if (this.running.has(name)) return;
    const handlers: Record<(typeof TASKS)[number], (input: never) => Promise<unknown>> = {
      ...this.tasks,
      releaseTenant: this.releaseTask.releaseTenant,
      checkDrift: async (i: DriftCheckInput) => {
        if (!this.driftTask) throw new Error('the local domain flow has no drift check task');
        return this.driftTask.checkDrift(i);
      },
    };
    const { releaseWaitMs } = this.options;
    const execution = this.machine.run(input, {
      overrides: {
        taskResourceLocalHandlers: Object.fromEntries(
          TASKS.map((t) => [S[t], async (i: unknown) => (await handlers[t](i as never)) as never]),
        ),
        waitTimeOverrides: { [S.waitForCertificate]: this.options.pollMs, [S.waitToRelease]: releaseWaitMs },
        retryIntervalOverrides: { [S.releaseTenant]: releaseWaitMs, [S.checkDrift]: releaseWaitMs },
      },
      context: { StateMachine: { Id: LOCAL_STATE_MACHINE_ARN, Name: 'domain-flow' }, Execution: { Name: name, Input: input } },
      noThrowOnAbort: true,
    });
    const result = execution.result
      .catch((error: unknown) => console.error(`domain flow ${name} failed:`, (error as Error).message))
      .finally(() => this.running.delete(name));
    this.running.set(name, { abort: execution.abort, result });
  }
}
