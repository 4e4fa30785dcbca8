import { createHash } from 'node:crypto';

/**
 * The custom-domain flow as an Amazon States Language document (JSONPath, so the local engine,
 * aws-local-stepfunctions, runs the very same definition; it ignores JSONata). An execution either
 * verifies a domain attempt or, when its input has `release`, releases a removed domain's tenant:
 *
 *   Operation? ─ $.release present → ReleaseTenant (the release branch, see releaseStates)
 *       ├─ $.drift present → CheckDrift (the drift branch, see driftStates)
 *       └─ otherwise ↓
 *   VerifyDns → DnsVerified? ─no──────────────────────────────→ DnsNotVerified (domain: dns_failed)
 *                  └─yes→ RequestCertificate → WaitForCertificate → CheckCertificate → CertificateReady?
 *                            ┌──────────── pending, watchdog not expired ─────┘      │
 *                            └→ WaitForCertificate                                    ├ issued → Activate (active)
 *                                                                                     └ failed, or 30-minute watchdog
 *                                                                                        expired → Diagnose (certificate_delayed)
 *
 * Why the release is a branch of this state machine rather than an SQS queue with a worker or a
 * second state machine: the control API already starts this machine (its ARN, its grant, the
 * deterministic execution names), Wait → task → Choice is the loop the certificate polling already
 * uses, its failed-executions alarm already exists, and the local engine runs this very document,
 * so the local platform exercises the same release without a second runner or queue emulation.
 *
 * Input: { domain, attempt, pollSeconds, watchdogSeconds }. The tasks keep the domain's record
 * up to date; the execution's outcome is the domain's state, so every path ends in success
 * except an unexpected error, which fails the execution (and raises the failed-executions alarm).
 * An unexpected error of a certificate step (RequestCertificate, CheckCertificate) goes to
 * Diagnose first, so the domain does not stay `issuing_certificate` with no explanation: it
 * becomes `certificate_delayed`, saying the request stopped and Re-verify retries it.
 */
export interface DomainFlowTasks {
  readonly verifyDns: string;
  readonly requestCertificate: string;
  readonly checkCertificate: string;
  readonly activate: string;
  readonly diagnose: string;
  readonly releaseTenant: string;
  readonly checkDrift: string;
}

export const DOMAIN_FLOW_STATES = {
  operation: 'Operation?',
  verifyDns: 'VerifyDns',
  dnsVerified: 'DnsVerified?',
  dnsNotVerified: 'DnsNotVerified',
  requestCertificate: 'RequestCertificate',
  waitForCertificate: 'WaitForCertificate',
  checkCertificate: 'CheckCertificate',
  certificateReady: 'CertificateReady?',
  activate: 'Activate',
  diagnose: 'Diagnose',
  failed: 'FlowFailed',
  releaseTenant: 'ReleaseTenant',
  tenantReleased: 'TenantReleased?',
  waitToRelease: 'WaitToRelease',
  released: 'Released',
  releaseKept: 'ReleaseKept',
  releaseFailed: 'TenantReleaseFailed',
  checkDrift: 'CheckDrift',
  driftChecked: 'DriftChecked?',
  driftCheckDone: 'DriftCheckDone',
  driftCheckFailed: 'DriftCheckFailed',
} as const;

/** The default time between certificate checks, and the watchdog (interface document, rule 9). */
export const DOMAIN_FLOW_DEFAULTS = { pollSeconds: 30, watchdogSeconds: 30 * 60 } as const;

/**
 * The release branch's timing. A disable usually deploys within minutes, so the first retry of the
 * delete comes after 30 s and the waits double up to 10 minutes; after 24 hours of refusals the
 * execution fails (the failed-executions alarm) instead of looping for ever.
 */
export const TENANT_RELEASE_DEFAULTS = {
  firstWaitSeconds: 30,
  maxWaitSeconds: 600,
  giveUpSeconds: 24 * 60 * 60,
} as const;

/**
 * Errors of the release task itself (throttling past the SDK backoff, an outage) are retried by Step
 * Functions: 30 s, then doubling up to 10 minutes with full jitter, six times (about 25 minutes)
 * before the execution fails.
 */
export const RELEASE_TASK_RETRY = {
  IntervalSeconds: 30,
  MaxAttempts: 6,
  BackoffRate: 2,
  MaxDelaySeconds: 600,
} as const;

const S = DOMAIN_FLOW_STATES;

const retryTransientLambdaErrors = [
  {
    ErrorEquals: ['Lambda.ServiceException', 'Lambda.AWSLambdaException', 'Lambda.SdkClientException', 'Lambda.TooManyRequestsException'],
    IntervalSeconds: 2,
    MaxAttempts: 4,
    BackoffRate: 2,
  },
];

const task = (resource: string, resultPath: string, next: string | undefined, onError: string = S.failed) => ({
  Type: 'Task',
  Resource: resource,
  ResultPath: resultPath,
  Retry: retryTransientLambdaErrors,
  Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: onError }],
  ...(next ? { Next: next } : { End: true }),
});

export function domainFlowDefinition(tasks: DomainFlowTasks): Record<string, unknown> {
  return {
    Comment:
      'Custom domain: verify DNS, request the certificate, wait for it with a 30-minute watchdog, activate or diagnose; or release a removed domain\'s tenant; or check live domains for DNS drift',
    StartAt: S.operation,
    States: {
      [S.operation]: {
        Type: 'Choice',
        Choices: [
          { Variable: '$.release', IsPresent: true, Next: S.releaseTenant },
          { Variable: '$.drift', IsPresent: true, Next: S.checkDrift },
        ],
        Default: S.verifyDns,
      },
      [S.verifyDns]: task(tasks.verifyDns, '$.dns', S.dnsVerified),
      [S.dnsVerified]: {
        Type: 'Choice',
        Choices: [{ Variable: '$.dns.verified', BooleanEquals: true, Next: S.requestCertificate }],
        Default: S.dnsNotVerified,
      },
      [S.dnsNotVerified]: { Type: 'Succeed', Comment: 'The domain is dns_failed with its reason; the owner fixes DNS and verifies again' },
      [S.requestCertificate]: task(tasks.requestCertificate, '$.certificate', S.waitForCertificate, S.diagnose),
      [S.waitForCertificate]: { Type: 'Wait', SecondsPath: '$.pollSeconds', Next: S.checkCertificate },
      [S.checkCertificate]: task(tasks.checkCertificate, '$.certificate', S.certificateReady, S.diagnose),
      [S.certificateReady]: {
        Type: 'Choice',
        Choices: [
          { Variable: '$.certificate.status', StringEquals: 'issued', Next: S.activate },
          { Variable: '$.certificate.status', StringEquals: 'failed', Next: S.diagnose },
          // The watchdog: 30 minutes after verification without a certificate, diagnose.
          { Variable: '$.certificate.watchdogExpired', BooleanEquals: true, Next: S.diagnose },
        ],
        Default: S.waitForCertificate,
      },
      [S.activate]: task(tasks.activate, '$.activation', undefined),
      [S.diagnose]: task(tasks.diagnose, '$.diagnosis', undefined),
      [S.failed]: { Type: 'Fail', Error: 'DomainFlowFailed', Cause: 'An unexpected error stopped the domain flow; the owner can re-verify' },
      ...releaseStates(tasks.releaseTenant),
      ...driftStates(tasks.checkDrift),
    },
  };
}

/**
 * The drift branch: every live domain re-checked, one page per round, until the last page.
 *
 *   CheckDrift → DriftChecked? ─ done → DriftCheckDone
 *        ↑                     └ more pages ─┐
 *        └───────────────────────────────────┘
 *
 * Input: { drift: {} } (the schedule's, or the control API's "check now"). The task gets the
 * state machine's own ARN from the context object, to start the release of a detached domain's
 * tenant on this very machine (a definition cannot name its own ARN). Its result (cursor, done,
 * counts) replaces $.drift for the next round. Errors of the task are retried like the release's;
 * after that the execution fails (DriftCheckFailed: the failed-executions alarm), and the next
 * scheduled run starts from the first page again.
 */
function driftStates(checkDrift: string): Record<string, unknown> {
  return {
    [S.checkDrift]: {
      Type: 'Task',
      Resource: checkDrift,
      Parameters: { 'drift.$': '$.drift', 'stateMachineArn.$': '$$.StateMachine.Id' },
      ResultPath: '$.drift',
      Retry: [...retryTransientLambdaErrors, { ErrorEquals: ['States.ALL'], ...RELEASE_TASK_RETRY, JitterStrategy: 'FULL' }],
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: S.driftCheckFailed }],
      Next: S.driftChecked,
    },
    [S.driftChecked]: {
      Type: 'Choice',
      Choices: [{ Variable: '$.drift.done', BooleanEquals: false, Next: S.checkDrift }],
      Default: S.driftCheckDone,
    },
    [S.driftCheckDone]: { Type: 'Succeed', Comment: 'Every live domain was checked; $.drift holds the counts' },
    [S.driftCheckFailed]: {
      Type: 'Fail',
      Error: 'DriftCheckFailed',
      Cause: 'The drift check of live domains kept failing; domains it did not reach keep their state until the next run',
    },
  };
}

/** A drift check started by hand (the control API's "check now"); scheduled ones get names from Step Functions. */
export function driftCheckExecutionName(at: number): string {
  return `drift-now-${at.toString(36)}`;
}

/**
 * The release branch: the removal has already stopped the domain at the edge (KeyValueStore), so
 * this only returns the tenant to the account's quota and then drops the edge entry.
 *
 *   ReleaseTenant → TenantReleased? ─ released → Released      (tenant gone, refusal entry dropped)
 *        ↑                           ├ kept     → ReleaseKept   (the domain was added again on that tenant)
 *        │                           ├ expired  → TenantReleaseFailed (24 h of refusals: the alarm)
 *        └──── WaitToRelease ←───────┘ pending  (the disable is still deploying; waits double up to 10 min)
 *
 * Input: { domain, release: { projectId, slug, claimedAt, requestedAt } }. The task's result
 * (status, attempts, waitSeconds, expired) is kept at $.released for the next round.
 */
function releaseStates(releaseTenant: string): Record<string, unknown> {
  return {
    [S.releaseTenant]: {
      Type: 'Task',
      Resource: releaseTenant,
      ResultPath: '$.released',
      Retry: [...retryTransientLambdaErrors, { ErrorEquals: ['States.ALL'], ...RELEASE_TASK_RETRY, JitterStrategy: 'FULL' }],
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: S.releaseFailed }],
      Next: S.tenantReleased,
    },
    [S.tenantReleased]: {
      Type: 'Choice',
      Choices: [
        { Variable: '$.released.status', StringEquals: 'released', Next: S.released },
        { Variable: '$.released.status', StringEquals: 'kept', Next: S.releaseKept },
        { Variable: '$.released.expired', BooleanEquals: true, Next: S.releaseFailed },
      ],
      Default: S.waitToRelease,
    },
    [S.waitToRelease]: { Type: 'Wait', SecondsPath: '$.released.waitSeconds', Next: S.releaseTenant },
    [S.released]: { Type: 'Succeed', Comment: 'The tenant no longer holds the domain (deleted with its last one); the edge entry is gone' },
    [S.releaseKept]: { Type: 'Succeed', Comment: 'The domain was added again on the same tenant: it is the new claim\'s now' },
    [S.releaseFailed]: {
      Type: 'Fail',
      Error: 'TenantReleaseFailed',
      Cause: 'The removed domain\'s tenant could not be released (still refused after the retries): it is disabled and serves nothing, but counts against the tenants quota',
    },
  };
}

/** Execution names are deterministic per domain attempt, so a double click cannot start two flows. */
export function domainFlowExecutionName(domain: string, attempt: number): string {
  return `${domain.replace(/[^A-Za-z0-9-_]/g, '_').slice(0, 70)}-${attempt}`;
}

/**
 * One release per claim of a domain (the removed record's createdAt), so a repeated removal call
 * cannot start two. At most 80 characters (the StartExecution limit): the name is cut, and a hash of
 * the whole domain keeps two long names with the same beginning apart.
 */
export function domainReleaseExecutionName(domain: string, claimedAt: string): string {
  const hash = createHash('sha256').update(domain).digest('hex').slice(0, 8);
  const claimed = Date.parse(claimedAt);
  if (Number.isNaN(claimed)) throw new Error(`domainReleaseExecutionName: claimedAt ${JSON.stringify(claimedAt)} is not a time`);
  return `release-${domain.replace(/[^A-Za-z0-9-_]/g, '_').slice(0, 50)}-${hash}-${claimed.toString(36)}`;
}
