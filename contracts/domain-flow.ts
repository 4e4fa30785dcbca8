import { createHash } from 'node:crypto';

/** The domain flow (JSONPath: the local engine runs it too); diagram in docs/contributors/architecture.md. */
export type DomainFlowTasks = Readonly<
  Record<'verifyDns' | 'requestCertificate' | 'checkCertificate' | 'activate' | 'diagnose' | 'releaseTenant' | 'checkDrift', string>
>;

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

/** The release branch's waits for a deploying disable: 30 s, doubling up to 10 minutes; failed after 24 h. */
export const TENANT_RELEASE_DEFAULTS = {
  firstWaitSeconds: 30,
  maxWaitSeconds: 600,
  giveUpSeconds: 24 * 60 * 60,
} as const;

/** Retries of the release and drift tasks' own errors: 30 s doubling up to 10 min, six times (~25 min). */
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

const retryTaskErrors = [...retryTransientLambdaErrors, { ErrorEquals: ['States.ALL'], ...RELEASE_TASK_RETRY, JitterStrategy: 'FULL' }];

const task = (
  resource: string,
  resultPath: string,
  next: string | undefined,
  onError: string = S.failed,
  retry: readonly object[] = retryTransientLambdaErrors,
  parameters?: object,
) => ({
  Type: 'Task',
  Resource: resource,
  ...(parameters ? { Parameters: parameters } : {}),
  ResultPath: resultPath,
  Retry: retry,
  Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: onError }],
  ...(next ? { Next: next } : { End: true }),
});
const choice = (choices: readonly object[], otherwise: string) => ({ Type: 'Choice', Choices: choices, Default: otherwise });
const succeed = (comment: string) => ({ Type: 'Succeed', Comment: comment });
const fail = (error: string, cause: string) => ({ Type: 'Fail', Error: error, Cause: cause });

/** The release branch returns a removed domain's tenant to the quota; the drift branch checks a page a round. */
export function domainFlowDefinition(tasks: DomainFlowTasks): Record<string, unknown> {
  const driftParameters = { 'drift.$': '$.drift', 'stateMachineArn.$': '$$.StateMachine.Id' };
  return {
    Comment:
      'Custom domain: verify DNS, request the certificate, wait for it with a 30-minute watchdog, activate or diagnose; or release a removed domain\'s tenant; or check live domains for DNS drift',
    StartAt: S.operation,
    States: {
      [S.operation]: choice(
        [
          { Variable: '$.release', IsPresent: true, Next: S.releaseTenant },
          { Variable: '$.drift', IsPresent: true, Next: S.checkDrift },
        ],
        S.verifyDns,
      ),
      [S.verifyDns]: task(tasks.verifyDns, '$.dns', S.dnsVerified),
      [S.dnsVerified]: choice([{ Variable: '$.dns.verified', BooleanEquals: true, Next: S.requestCertificate }], S.dnsNotVerified),
      [S.dnsNotVerified]: succeed('The domain is dns_failed with its reason; the owner fixes DNS and verifies again'),
      [S.requestCertificate]: task(tasks.requestCertificate, '$.certificate', S.waitForCertificate, S.diagnose),
      [S.waitForCertificate]: { Type: 'Wait', SecondsPath: '$.pollSeconds', Next: S.checkCertificate },
      [S.checkCertificate]: task(tasks.checkCertificate, '$.certificate', S.certificateReady, S.diagnose),
      [S.certificateReady]: choice(
        [
          { Variable: '$.certificate.status', StringEquals: 'issued', Next: S.activate },
          { Variable: '$.certificate.status', StringEquals: 'failed', Next: S.diagnose },
          // The watchdog: 30 minutes after verification without a certificate, diagnose.
          { Variable: '$.certificate.watchdogExpired', BooleanEquals: true, Next: S.diagnose },
        ],
        S.waitForCertificate,
      ),
      [S.activate]: task(tasks.activate, '$.activation', undefined),
      [S.diagnose]: task(tasks.diagnose, '$.diagnosis', undefined),
      [S.failed]: fail('DomainFlowFailed', 'An unexpected error stopped the domain flow; the owner can re-verify'),
      [S.releaseTenant]: task(tasks.releaseTenant, '$.released', S.tenantReleased, S.releaseFailed, retryTaskErrors),
      [S.tenantReleased]: choice(
        [
          { Variable: '$.released.status', StringEquals: 'released', Next: S.released },
          { Variable: '$.released.status', StringEquals: 'kept', Next: S.releaseKept },
          { Variable: '$.released.expired', BooleanEquals: true, Next: S.releaseFailed },
        ],
        S.waitToRelease,
      ),
      [S.waitToRelease]: { Type: 'Wait', SecondsPath: '$.released.waitSeconds', Next: S.releaseTenant },
      [S.released]: succeed('The tenant no longer holds the domain (deleted with its last one); the edge entry is gone'),
      [S.releaseKept]: succeed('The domain was added again on the same tenant: it is the new claim\'s now'),
      [S.releaseFailed]: fail(
        'TenantReleaseFailed',
        'The removed domain\'s tenant could not be released (still refused after the retries): it is disabled and serves nothing, but counts against the tenants quota',
      ),
      [S.checkDrift]: task(tasks.checkDrift, '$.drift', S.driftChecked, S.driftCheckFailed, retryTaskErrors, driftParameters),
      [S.driftChecked]: choice([{ Variable: '$.drift.done', BooleanEquals: false, Next: S.checkDrift }], S.driftCheckDone),
      [S.driftCheckDone]: succeed('Every live domain was checked; $.drift holds the counts'),
      [S.driftCheckFailed]: fail(
        'DriftCheckFailed',
        'The drift check of live domains kept failing; domains it did not reach keep their state until the next run',
      ),
    },
  };
}

/** A drift check started by hand (the control API's "check now"); scheduled ones get names from Step Functions. */
export function driftCheckExecutionName(at: number): string {
  return `drift-now-${at.toString(36)}`;
}

/** Execution names are deterministic per domain attempt, so a double click cannot start two flows. */
export function domainFlowExecutionName(domain: string, attempt: number): string {
  return `${domain.replace(/[^A-Za-z0-9-_]/g, '_').slice(0, 70)}-${attempt}`;
}

/** One release per claim (createdAt); at most 80 characters, a hash keeps cut names apart. */
export function domainReleaseExecutionName(domain: string, claimedAt: string): string {
  const hash = createHash('sha256').update(domain).digest('hex').slice(0, 8);
  const claimed = Date.parse(claimedAt);
  if (Number.isNaN(claimed)) throw new Error(`domainReleaseExecutionName: claimedAt ${JSON.stringify(claimedAt)} is not a time`);
  return `release-${domain.replace(/[^A-Za-z0-9-_]/g, '_').slice(0, 50)}-${hash}-${claimed.toString(36)}`;
}
