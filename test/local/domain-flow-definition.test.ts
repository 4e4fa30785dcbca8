import '../../local/polyfills.js';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import {
  DOMAIN_FLOW_STATES as S,
  domainFlowDefinition,
  domainFlowExecutionName,
} from '../../lib/constructs/domains/domain-flow-definition.js';

// The definition's control flow, run by the local engine with scripted task answers (the flow's
// real Lambda handlers are exercised end to end by the domain integration tests).
const arn = (name: string) => `arn:aws:lambda:eu-west-1:123456789012:function:${name}`;
const definition = domainFlowDefinition({
  verifyDns: arn('verify'),
  requestCertificate: arn('request'),
  checkCertificate: arn('check'),
  activate: arn('activate'),
  diagnose: arn('diagnose'),
});

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
