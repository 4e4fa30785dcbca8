/**
 * The custom-domain flow as an Amazon States Language document (JSONPath, so the local engine,
 * aws-local-stepfunctions, runs the very same definition; it ignores JSONata).
 *
 *   VerifyDns → DnsVerified? ─no──────────────────────────────→ DnsNotVerified (domain: dns_failed)
 *                  └─yes→ RequestCertificate → WaitForCertificate → CheckCertificate → CertificateReady?
 *                            ┌──────────── pending, watchdog not expired ─────┘      │
 *                            └→ WaitForCertificate                                    ├ issued → Activate (active)
 *                                                                                     └ failed, or 30-minute watchdog
 *                                                                                        expired → Diagnose (certificate_delayed)
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
}

export const DOMAIN_FLOW_STATES = {
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
} as const;

/** The default time between certificate checks, and the watchdog (interface document, rule 9). */
export const DOMAIN_FLOW_DEFAULTS = { pollSeconds: 30, watchdogSeconds: 30 * 60 } as const;

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
    Comment: 'Custom domain: verify DNS, request the certificate, wait for it with a 30-minute watchdog, activate or diagnose',
    StartAt: S.verifyDns,
    States: {
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
    },
  };
}

/** Execution names are deterministic per domain attempt, so a double click cannot start two flows. */
export function domainFlowExecutionName(domain: string, attempt: number): string {
  return `${domain.replace(/[^A-Za-z0-9-_]/g, '_').slice(0, 70)}-${attempt}`;
}
