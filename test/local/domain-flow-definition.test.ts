import '../../local/polyfills.js';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import {
  DOMAIN_FLOW_STATES as S,
  domainFlowDefinition,
  domainFlowExecutionName,
  RELEASE_TASK_RETRY,
} from '../../contracts/domain-flow.js';

// The definition's control flow, run by the local engine with scripted task answers (the flow's
// real Lambda handlers are exercised end to end by the domain integration tests).
const arn = (name: string) => `arn:aws:lambda:eu-west-1:123456789012:function:${name}`;
const tasks = {
  verifyDns: arn('verify'),
  requestCertificate: arn('request'),
  checkCertificate: arn('check'),
  activate: arn('activate'),
  diagnose: arn('diagnose'),
  releaseTenant: arn('release'),
  checkDrift: arn('drift'),
};
const definition = domainFlowDefinition(tasks);
/** The engine adds fields to the document it runs (QueryLanguage): shape checks read an untouched one. */
const pristine = () => domainFlowDefinition(tasks);

type Certificate = { status: string; watchdogExpired: boolean };

async function run(answers: { dns: boolean; certificate: Certificate[]; failing?: string }) {
  const visited: string[] = [];
  const certificates = [...answers.certificate];
  type Handler = NonNullable<NonNullable<Parameters<StateMachine['run']>[1]>['overrides']>['taskResourceLocalHandlers'];
  type Json = ReturnType<NonNullable<Handler>[string]>;
  let diagnoseInput: unknown;
  const handler = (name: string, answer: () => unknown) => async (input: unknown) => {
    visited.push(name);
    if (name === S.diagnose) diagnoseInput = input;
    if (name === answers.failing) throw new Error(`${name} failed`);
    return answer() as Awaited<Json>;
  };
  const machine = new StateMachine(definition as unknown as StateMachineDefinition, {
    validationOptions: { checkPaths: true },
  });
  const execution = machine.run(
    { domain: 'www.example.com', attempt: 1, pollSeconds: 30, watchdogSeconds: 1800 },
    {
      overrides: {
        taskResourceLocalHandlers: {
          [S.verifyDns]: handler(S.verifyDns, () => ({ verified: answers.dns })),
          [S.requestCertificate]: handler(S.requestCertificate, () => ({ status: 'pending', watchdogExpired: false })),
          [S.checkCertificate]: handler(S.checkCertificate, () => certificates.shift()),
          [S.activate]: handler(S.activate, () => ({ state: 'active' })),
          [S.diagnose]: handler(S.diagnose, () => ({ state: 'certificate_delayed' })),
          [S.releaseTenant]: handler(S.releaseTenant, () => {
            throw new Error('a verification must not release');
          }),
          [S.checkDrift]: handler(S.checkDrift, () => {
            throw new Error('a verification must not check drift');
          }),
        },
        waitTimeOverrides: { [S.waitForCertificate]: 0 },
      },
    },
  );
  const result = (await execution.result) as Record<string, unknown>;
  return { visited, result, diagnoseInput };
}

const pending: Certificate = { status: 'pending', watchdogExpired: false };

describe('domain flow definition', () => {
  it('ends at DnsNotVerified without requesting a certificate when DNS does not verify', async () => {
    const { visited } = await run({ dns: false, certificate: [] });
    expect(visited).toEqual([S.verifyDns]);
  });

  it('polls until the certificate is issued, then activates', async () => {
    const { visited, result } = await run({ dns: true, certificate: [pending, pending, { status: 'issued', watchdogExpired: false }] });
    expect(visited).toEqual([
      S.verifyDns,
      S.requestCertificate,
      S.checkCertificate,
      S.checkCertificate,
      S.checkCertificate,
      S.activate,
    ]);
    expect(result.activation).toEqual({ state: 'active' });
  });

  it('diagnoses when the watchdog expires without a certificate', async () => {
    const expired = { status: 'pending', watchdogExpired: true };
    const { visited, result } = await run({ dns: true, certificate: [pending, expired] });
    expect(visited.at(-1)).toBe(S.diagnose);
    expect(result.diagnosis).toEqual({ state: 'certificate_delayed' });
  });

  it('diagnoses at once when issuance failed', async () => {
    const { visited } = await run({ dns: true, certificate: [{ status: 'failed', watchdogExpired: false }] });
    expect(visited.at(-1)).toBe(S.diagnose);
  });

  it('diagnoses (rather than leaving the domain issuing) when a certificate step fails unexpectedly', async () => {
    for (const failing of [S.requestCertificate, S.checkCertificate]) {
      const { visited, diagnoseInput } = await run({ dns: true, certificate: [pending], failing });
      expect(visited.at(-1), failing).toBe(S.diagnose);
      expect(diagnoseInput).toMatchObject({ domain: 'www.example.com', attempt: 1, error: { Error: 'Error' } });
    }
  });

  it('fails the execution when DNS verification itself fails unexpectedly', async () => {
    // A Fail state rejects the run; going to Diagnose instead would resolve it.
    await expect(run({ dns: true, certificate: [], failing: S.verifyDns })).rejects.toThrow();
  });

  it('is JSONPath only (no JSONata), with the watchdog branch', () => {
    expect(JSON.stringify(definition)).not.toContain('JSONata');
    const states = definition.States as Record<string, { Choices?: Array<Record<string, unknown>> }>;
    const choice = states[S.certificateReady];
    const watchdog = { Variable: '$.certificate.watchdogExpired', BooleanEquals: true, Next: S.diagnose };
    expect(choice?.Choices).toContainEqual(watchdog);
  });

  it('names executions deterministically per domain attempt', () => {
    expect(domainFlowExecutionName('www.example.com', 3)).toBe('www_example_com-3');
  });
});

type Released = { status: string; attempts: number; waitSeconds: number; expired: boolean };

/** Runs a release execution with scripted rounds (an Error instance is thrown by that round). */
async function release(rounds: Array<Released | Error>) {
  const visited: string[] = [];
  const inputs: unknown[] = [];
  const waits: number[] = [];
  const machine = new StateMachine(definition as unknown as StateMachineDefinition, {
    validationOptions: { checkPaths: true },
  });
  const fail = (name: string) => async () => {
    visited.push(name);
    throw new Error(`${name} must not run in a release`);
  };
  const execution = machine.run(
    {
      domain: 'www.example.com',
      release: { projectId: 'prj_1', claimedAt: '2026-01-01T00:00:00.000Z', requestedAt: '2026-01-02T00:00:00.000Z' },
    },
    {
      overrides: {
        taskResourceLocalHandlers: {
          [S.verifyDns]: fail(S.verifyDns),
          [S.requestCertificate]: fail(S.requestCertificate),
          [S.checkCertificate]: fail(S.checkCertificate),
          [S.activate]: fail(S.activate),
          [S.diagnose]: fail(S.diagnose),
          [S.checkDrift]: fail(S.checkDrift),
          [S.releaseTenant]: async (input: unknown) => {
            visited.push(S.releaseTenant);
            inputs.push(input);
            const next = rounds.shift();
            if (!next) throw new Error('no more scripted rounds');
            if (next instanceof Error) throw next;
            const previous = (input as { released?: Released }).released;
            if (previous) waits.push(previous.waitSeconds);
            return next;
          },
        },
        waitTimeOverrides: { [S.waitToRelease]: 0 },
        retryIntervalOverrides: { [S.releaseTenant]: 0 },
      },
    },
  );
  return { visited, inputs, waits, result: execution.result as Promise<Record<string, unknown>> };
}

/** The Error of the Fail state an execution ended in (the engine wraps it in an ExecutionError). */
const failedWith = async (result: Promise<unknown>) => {
  const error = (await result.then(() => undefined, (e: unknown) => e)) as { cause?: { name?: string } } | undefined;
  return error?.cause?.name;
};

const pendingRound = (attempts: number, waitSeconds: number, expired = false): Released => ({ status: 'pending', attempts, waitSeconds, expired });

describe('domain flow definition: the release branch', () => {
  it('goes to ReleaseTenant when the input has `release`, to CheckDrift when it has `drift`, and to VerifyDns otherwise', () => {
    const states = pristine().States as Record<string, unknown>;
    expect(pristine().StartAt).toBe(S.operation);
    expect(states[S.operation]).toEqual({
      Type: 'Choice',
      Choices: [
        { Variable: '$.release', IsPresent: true, Next: S.releaseTenant },
        { Variable: '$.drift', IsPresent: true, Next: S.checkDrift },
      ],
      Default: S.verifyDns,
    });
  });

  it('waits the time each pending round asks for, passing its result on, until the tenant is released', async () => {
    const run = await release([pendingRound(1, 30), pendingRound(2, 60), { status: 'released', attempts: 2, waitSeconds: 0, expired: false }]);
    const result = await run.result;
    expect(run.visited).toEqual([S.releaseTenant, S.releaseTenant, S.releaseTenant]);
    expect(run.waits).toEqual([30, 60]);
    expect(result.released).toEqual({ status: 'released', attempts: 2, waitSeconds: 0, expired: false });
    expect(run.inputs[0]).toEqual({
      domain: 'www.example.com',
      release: { projectId: 'prj_1', claimedAt: '2026-01-01T00:00:00.000Z', requestedAt: '2026-01-02T00:00:00.000Z' },
    });
  });

  it('ends without another round when the domain was claimed again on that tenant (kept)', async () => {
    const run = await release([{ status: 'kept', attempts: 0, waitSeconds: 0, expired: false }]);
    await run.result;
    expect(run.visited).toEqual([S.releaseTenant]);
  });

  it('fails the execution (TenantReleaseFailed, the alarm) when refusals outlast the give-up time', async () => {
    const run = await release([pendingRound(1, 30), pendingRound(2, 60, true)]);
    expect(await failedWith(run.result)).toBe('TenantReleaseFailed');
    expect(run.visited).toEqual([S.releaseTenant, S.releaseTenant]);
  });

  it('retries a failing task RELEASE_TASK_RETRY.MaxAttempts times, then fails the execution', async () => {
    const failures = Array.from({ length: RELEASE_TASK_RETRY.MaxAttempts + 1 }, () => new Error('CloudFront is down'));
    const run = await release(failures);
    expect(await failedWith(run.result)).toBe('TenantReleaseFailed');
    expect(run.visited).toHaveLength(RELEASE_TASK_RETRY.MaxAttempts + 1);

    const recovering = await release([new Error('throttled'), { status: 'released', attempts: 0, waitSeconds: 0, expired: false }]);
    expect((await recovering.result).released).toMatchObject({ status: 'released' });
  });

  it('backs a failing task off exponentially with full jitter, capped, and waits as the task says between rounds', () => {
    const states = pristine().States as Record<string, { Retry?: unknown[] }>;
    expect(states[S.releaseTenant]?.Retry?.at(-1)).toEqual({
      ErrorEquals: ['States.ALL'],
      IntervalSeconds: 30,
      MaxAttempts: 6,
      BackoffRate: 2,
      MaxDelaySeconds: 600,
      JitterStrategy: 'FULL',
    });
    expect(states[S.waitToRelease]).toEqual({ Type: 'Wait', SecondsPath: '$.released.waitSeconds', Next: S.releaseTenant });
  });
});

type DriftRound = { cursor?: string; done: boolean; checked: number };

/** Runs a drift execution with scripted rounds, as the schedule starts it ({ drift: {} }). */
async function drift(rounds: Array<DriftRound | Error>) {
  const inputs: unknown[] = [];
  const machine = new StateMachine(definition as unknown as StateMachineDefinition, {
    validationOptions: { checkPaths: true },
  });
  const fail = (name: string) => async () => {
    throw new Error(`${name} must not run in a drift check`);
  };
  const execution = machine.run(DRIFT_INPUT, {
    overrides: {
      taskResourceLocalHandlers: {
        [S.verifyDns]: fail(S.verifyDns),
        [S.requestCertificate]: fail(S.requestCertificate),
        [S.checkCertificate]: fail(S.checkCertificate),
        [S.activate]: fail(S.activate),
        [S.diagnose]: fail(S.diagnose),
        [S.releaseTenant]: fail(S.releaseTenant),
        [S.checkDrift]: async (input: unknown) => {
          inputs.push(input);
          const next = rounds.shift();
          if (!next) throw new Error('no more scripted rounds');
          if (next instanceof Error) throw next;
          return next;
        },
      },
      retryIntervalOverrides: { [S.checkDrift]: 0 },
    },
    context: { StateMachine: { Id: MACHINE } },
  });
  return { inputs, result: execution.result as Promise<Record<string, unknown>> };
}

const MACHINE = 'arn:aws:states:eu-west-1:123456789012:stateMachine:flow';
const DRIFT_INPUT = { drift: {} };

describe('domain flow definition: the drift branch', () => {
  it('runs a round per page, handing each round the previous result and the state machine\'s own ARN', async () => {
    const run = await drift([{ cursor: 'p2', done: false, checked: 50 }, { cursor: 'p3', done: false, checked: 100 }, { done: true, checked: 120 }]);
    expect((await run.result).drift).toEqual({ done: true, checked: 120 });
    expect(run.inputs).toEqual([
      { drift: {}, stateMachineArn: MACHINE },
      { drift: { cursor: 'p2', done: false, checked: 50 }, stateMachineArn: MACHINE },
      { drift: { cursor: 'p3', done: false, checked: 100 }, stateMachineArn: MACHINE },
    ]);
  });

  it('retries a failing round, then fails the execution (DriftCheckFailed, the failed-executions alarm)', async () => {
    const recovering = await drift([new Error('throttled'), { done: true, checked: 3 }]);
    expect((await recovering.result).drift).toEqual({ done: true, checked: 3 });
    const failing = await drift(Array.from({ length: RELEASE_TASK_RETRY.MaxAttempts + 1 }, () => new Error('DynamoDB is down')));
    expect(await failedWith(failing.result)).toBe('DriftCheckFailed');
    expect(failing.inputs).toHaveLength(RELEASE_TASK_RETRY.MaxAttempts + 1);
  });
});
