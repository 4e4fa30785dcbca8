import '../../../local/polyfills.js';
import { randomUUID } from 'node:crypto';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { Template } from './cdk-out.js';
import { BundleError, HandlerError } from './lambda-process.js';
import { lambdaArnOf, localResolver, pseudoParameters } from './local-resources.js';
import { FUNCTIONS, type BundleStage, type FunctionKey } from './stage.js';

/** One task of an execution: which bundle ran it, with what input (as the engine computed it), and its answer. */
export interface TaskCall {
  readonly state: string;
  readonly fn: FunctionKey;
  readonly input: unknown;
  readonly output?: unknown;
  readonly error?: string;
}

export interface FlowRun {
  readonly status: 'SUCCEEDED' | 'FAILED';
  readonly output: unknown;
  readonly error?: string;
  readonly tasks: readonly TaskCall[];
}

type Json = Parameters<StateMachine['run']>[0];
interface State { readonly Type: string; readonly Resource?: string }

/**
 * The domain flow as synthesized: the Domains template's DefinitionString, its task ARNs resolved
 * to the functions they name, run in aws-local-stepfunctions with every Task state invoking that
 * function's bundle. Waits and the tasks' retry intervals are cut to nothing.
 */
export class SynthesizedFlow {
  /** The state machine's ARN (its Ref, resolved as the stacks' references to it are): `$$.StateMachine.Id` of every run. */
  readonly arn: string;
  private readonly machine: StateMachine;
  private readonly taskFunctions = new Map<string, FunctionKey>();
  private readonly waits: string[] = [];
  private readonly resources: NonNullable<Template['Resources']>;
  private readonly logicalId: string;

  constructor(private readonly stage: BundleStage) {
    const { assembly } = stage;
    const found = [...assembly.stacks.values()].flatMap((stack) =>
      Object.entries(stack.template.Resources ?? {})
        .filter(([, r]) => r.Type === 'AWS::StepFunctions::StateMachine')
        .filter(([, r]) => String(r.Metadata?.['aws:cdk:path']).endsWith('/Flow/StateMachine/Resource'))
        .map(([logicalId, r]) => ({ stack, logicalId, definition: r.Properties?.DefinitionString })),
    );
    const [flow] = found;
    if (found.length !== 1 || !flow?.definition) throw new Error(`expected one Flow/StateMachine in ${assembly.dir}, found ${found.length}`);
    const resolve = localResolver(stage.platform, flow.stack.region);
    const pseudo = pseudoParameters(flow.stack.region);
    this.arn = assembly.resolveValue(flow.stack.name, { Ref: flow.logicalId }, resolve, pseudo);
    this.resources = flow.stack.template.Resources ?? {};
    this.logicalId = flow.logicalId;
    const definition = JSON.parse(
      assembly.resolveValue(flow.stack.name, flow.definition, resolve, pseudo),
    ) as { States: Record<string, State> };

    const byArn = new Map<string, FunctionKey>();
    for (const key of Object.keys(FUNCTIONS) as FunctionKey[]) {
      const fn = stage.fn(key);
      byArn.set(lambdaArnOf(fn.region, fn.stack, fn.logicalId), key);
    }
    for (const [name, state] of Object.entries(definition.States)) {
      if (state.Type === 'Wait') this.waits.push(name);
      if (state.Type !== 'Task') continue;
      const key = byArn.get(state.Resource ?? '');
      if (!key) throw new Error(`state ${name} runs ${state.Resource}, which is none of the stage's functions`);
      this.taskFunctions.set(name, key);
    }
    this.machine = new StateMachine(definition as unknown as StateMachineDefinition);
  }

  /** The function each Task state invokes. */
  tasks(): ReadonlyMap<string, FunctionKey> {
    return this.taskFunctions;
  }

  /**
   * The input an EventBridge Scheduler schedule of the same stack starts this state machine with:
   * the target Input of the AWS::Scheduler::Schedule at `path` (below the stack), which must target
   * this state machine.
   */
  scheduledInput(path: string): Record<string, unknown> {
    const schedules = Object.entries(this.resources)
      .filter(([, r]) => r.Type === 'AWS::Scheduler::Schedule' && String(r.Metadata?.['aws:cdk:path']).endsWith(`/${path}/Resource`));
    const [schedule] = schedules;
    if (schedules.length !== 1 || !schedule) throw new Error(`expected one AWS::Scheduler::Schedule at ${path}, found ${schedules.length}`);
    const target = schedule[1].Properties?.Target as { Arn?: unknown; Input?: unknown } | undefined;
    if (JSON.stringify(target?.Arn) !== JSON.stringify({ Ref: this.logicalId })) {
      throw new Error(`the schedule at ${path} targets ${JSON.stringify(target?.Arn)}, not the flow's state machine ${this.logicalId}`);
    }
    if (typeof target?.Input !== 'string') throw new Error(`the schedule at ${path} has no Target.Input string`);
    return JSON.parse(target.Input) as Record<string, unknown>;
  }

  /**
   * Runs one execution to its end; a bundle that could not run fails the call itself, not just the
   * execution. The context object is the one Step Functions gives an execution (the state machine's
   * ARN and name, the execution's; an execution started without a name gets a UUID, as Scheduler's do).
   */
  async run(input: Readonly<Record<string, unknown>>, executionName: string = randomUUID()): Promise<FlowRun> {
    const tasks: TaskCall[] = [];
    let broken: BundleError | undefined;
    const handlers = Object.fromEntries(
      [...this.taskFunctions].map(([state, fn]) => [
        state,
        async (taskInput: Json) => {
          try {
            const output = await this.stage.invoke<Json>(fn, taskInput);
            tasks.push({ state, fn, input: taskInput, output });
            return output;
          } catch (error) {
            tasks.push({ state, fn, input: taskInput, error: (error as Error).message });
            if (error instanceof BundleError) broken ??= error;
            // Step Functions matches Retry/Catch on the function's errorType.
            if (error instanceof HandlerError) {
              throw Object.assign(new Error(error.errorMessage), { name: error.errorType });
            }
            throw error;
          }
        },
      ]),
    );
    const stateMachineName = this.arn.split(':').pop() ?? '';
    const execution = this.machine.run(input as Json, {
      context: {
        StateMachine: { Id: this.arn, Name: stateMachineName },
        Execution: { Id: `${this.arn.replace(':stateMachine:', ':execution:')}:${executionName}`, Name: executionName },
      },
      overrides: {
        taskResourceLocalHandlers: handlers,
        waitTimeOverrides: Object.fromEntries(this.waits.map((w) => [w, 0])),
        retryIntervalOverrides: Object.fromEntries([...this.taskFunctions.keys()].map((s) => [s, 0])),
      },
    });
    let run: FlowRun;
    try {
      run = { status: 'SUCCEEDED', output: await execution.result, tasks };
    } catch (error) {
      run = { status: 'FAILED', output: null, error: (error as Error).message, tasks };
    }
    if (broken) throw broken;
    return run;
  }
}
